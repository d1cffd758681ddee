// A confirmation before something that cannot be undone. The safe choice
// (Cancel) has focus first, so Enter never deletes by accident.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Modal } from './Modal.js';

export interface ConfirmProps {
  readonly title: string;
  readonly children: ComponentChildren;
  readonly confirmLabel: string;
  /** Resolves true when the thing is gone (focus then goes to the fallback, not to the opener in its row). */
  readonly onConfirm: () => Promise<boolean | void> | boolean | void;
  readonly onClose: () => void;
  readonly fallbackFocus?: () => HTMLElement | null;
}

export function Confirm({ title, children, confirmLabel, onConfirm, onClose, fallbackFocus }: ConfirmProps) {
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const done = useRef(false);
  useEffect(() => cancel.current?.focus(), []);
  async function confirm() {
    setBusy(true);
    try {
      done.current = (await onConfirm()) === true;
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal title={title} onClose={onClose} role="alertdialog" fallbackFocus={fallbackFocus} openerGone={() => done.current}>
      <div class="confirm-text">{children}</div>
      <div class="actions">
        <button type="button" ref={cancel} onClick={onClose}>
          Cancel
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => void confirm()}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
