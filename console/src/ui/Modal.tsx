// A modal dialog on the native <dialog>: showModal() makes the rest of the
// page inert and traps focus, Escape closes it (the 'cancel' event), and on
// close focus goes back to the control that opened it.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useLayoutEffect, useRef } from 'preact/hooks';

export interface ModalProps {
  readonly title: string;
  readonly onClose: () => void;
  readonly children: ComponentChildren;
  /** 'sheet' slides in from the right (the asset detail), 'dialog' is centred. */
  readonly variant?: 'sheet' | 'dialog';
  /** Where focus goes when the opener is gone (say, the row of a deleted asset). */
  readonly fallbackFocus?: () => HTMLElement | null;
  /** True when the opener is about to go (its record was deleted, the list has not caught up yet): focus the fallback. */
  readonly openerGone?: () => boolean;
  readonly role?: 'dialog' | 'alertdialog';
}

export function Modal({ title, onClose, children, variant = 'dialog', fallbackFocus, openerGone, role }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const latestClose = useRef(onClose);
  latestClose.current = onClose;
  const fallback = useRef(fallbackFocus);
  fallback.current = fallbackFocus;
  const gone = useRef(openerGone);
  gone.current = openerGone;

  useLayoutEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    const closed = () => latestClose.current();
    dialog.addEventListener('close', closed);
    return () => {
      dialog.removeEventListener('close', closed);
      if (dialog.open) dialog.close();
      // After this render, which may remove the opener (the row of a deleted asset): then the fallback.
      requestAnimationFrame(() => (opener?.isConnected && !gone.current?.() ? opener : fallback.current?.())?.focus());
    };
  }, []);

  // A click on the backdrop (the dialog element itself, outside its content) closes it.
  useEffect(() => {
    const dialog = ref.current!;
    const click = (event: MouseEvent) => event.target === dialog && dialog.close();
    dialog.addEventListener('click', click);
    return () => dialog.removeEventListener('click', click);
  }, []);

  return (
    <dialog ref={ref} class={`modal modal-${variant}`} aria-labelledby={titleId} role={role}>
      <div class="modal-body">
        <header class="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" class="icon-button" aria-label="Close" onClick={() => ref.current?.close()}>
            <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
              <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
            </svg>
          </button>
        </header>
        {children}
      </div>
    </dialog>
  );
}
