// A confirmation before something that cannot be undone. The safe choice
// (Cancel) has focus first, so Enter never deletes by accident.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Modal } from './Modal.js';

export interface ConfirmProps {
  readonly title: string;
  readonly children: ComponentChildren;
  readonly confirmLabel: string;
  readonly onConfirm: () => Promise<void> | void;
  readonly onClose: () => void;
  readonly fallbackFocus?: () => HTMLElement | null;
}

export function Confirm({ title, children, confirmLabel, onConfirm, onClose, fallbackFocus }: ConfirmProps) {
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => cancel.current?.focus(), []);
  return (
    <Modal title={title} onClose={onClose} role="alertdialog" fallbackFocus={fallbackFocus}>
      <div class="confirm-text">{children}</div>
      <div class="actions">
        <button type="button" ref={cancel} onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await onConfirm();
            } finally {
              setBusy(false);
            }
          }}
        >
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
