// What "Delete selected" did to each asset, as the server answered per id.
import type { Asset } from '../../lib/api.js';
import { Modal } from '../../ui/Modal.js';

export interface BatchResult {
  readonly id: string;
  readonly code: string;
}

const CODE_TEXT: Record<string, string> = {
  ok: 'Deleted',
  not_found: 'Not found (already gone)',
  invalid_argument: 'Refused: not an asset id',
};

export function BatchResults({
  results,
  names,
  onClose,
  fallbackFocus,
}: {
  readonly results: readonly BatchResult[];
  readonly names: ReadonlyMap<string, Asset>;
  readonly onClose: () => void;
  readonly fallbackFocus: () => HTMLElement | null;
}) {
  const deleted = results.filter((result) => result.code === 'ok').length;
  return (
    <Modal title={`Deleted ${deleted} of ${results.length}`} onClose={onClose} fallbackFocus={fallbackFocus}>
      <table class="results">
        <caption class="visually-hidden">Result per asset</caption>
        <thead>
          <tr>
            <th scope="col">Asset</th>
            <th scope="col">Id</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {results.map((result) => (
            <tr key={result.id} class={result.code === 'ok' ? '' : 'result-problem'}>
              <td>{names.get(result.id)?.name || '—'}</td>
              <td>{result.id}</td>
              <td>{CODE_TEXT[result.code] ?? result.code}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="actions">
        <button type="button" class="primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Modal>
  );
}
