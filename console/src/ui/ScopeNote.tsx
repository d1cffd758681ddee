// Says why an action is disabled: the token lacks the scope it needs. Linked
// to the control with aria-describedby, so the reason is read with it.
export function ScopeNote({ id, reason }: { readonly id: string; readonly reason: string | undefined }) {
  if (!reason) return null;
  return (
    <p id={id} class="scope-note">
      {reason}
    </p>
  );
}
