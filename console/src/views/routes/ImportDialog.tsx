// Import: a route file (YAML or JSON, the CLI's format) applied as a whole.
// The file is read in the browser (a syntax error shows its line and column),
// its plan is shown (with the CLI's owner and prune), and only then applied,
// against the revision planned.
import { useId, useState } from 'preact/hooks';
import type { RoutesFile } from '@switchyard/client/routes-file';
import { SwitchyardRestError, type Api } from '../../lib/api.js';
import { announce } from '../../lib/announce.js';
import { Modal } from '../../ui/Modal.js';
import { PlanPanel, counts } from './PlanPanel.js';
import { readRoutesFile, type FileProblem } from './routes-as-code.js';

export interface ImportDialogProps {
  readonly api: Api;
  readonly onClose: () => void;
  readonly fallbackFocus?: () => HTMLElement | null;
}

export function ImportDialog({ api, onClose, fallbackFocus }: ImportDialogProps) {
  const ids = useId();
  const [chosen, setChosen] = useState<File | null>(null);
  const [owner, setOwner] = useState('');
  const [prune, setPrune] = useState(false);
  const [problem, setProblem] = useState<FileProblem | null>(null);
  const [read, setRead] = useState<{
    readonly file: RoutesFile;
    readonly owner: string;
    readonly prune: boolean;
    readonly serial: number;
  } | null>(null);
  const [serial, setSerial] = useState(0);
  // Any change to what would be applied takes the plan away: it no longer says what Apply does.
  const changed = () => (setRead(null), setProblem(null));

  async function showPlan(event: Event) {
    event.preventDefault();
    if (!chosen) return setProblem({ reason: 'Choose a route file first.' });
    let outcome;
    try {
      outcome = await readRoutesFile(chosen);
    } catch (error) {
      return setProblem({ reason: `The file could not be read: ${error instanceof Error ? error.message : String(error)}` });
    }
    if ('problem' in outcome) return void (setProblem(outcome.problem), setRead(null));
    setProblem(null);
    setSerial(serial + 1);
    setRead({ file: outcome.file, owner: owner.trim(), prune, serial: serial + 1 });
  }

  const request = read && {
    routes: read.file.routes,
    ...(read.owner ? { owner: read.owner } : {}),
    prune: read.prune,
  };
  const fileError = `${ids}-file-error`;

  return (
    <Modal title="Import a route file" onClose={onClose} fallbackFocus={fallbackFocus}>
      <form class="stack import-form" onSubmit={(event) => void showPlan(event)}>
        <div class="field">
          <label for={`${ids}-file`}>Route file</label>
          <input
            id={`${ids}-file`}
            type="file"
            accept=".yaml,.yml,.json,application/yaml,application/json"
            aria-invalid={problem ? 'true' : undefined}
            aria-describedby={`${ids}-file-help${problem ? ` ${fileError}` : ''}`}
            onChange={(event) => (setChosen(event.currentTarget.files?.[0] ?? null), changed())}
          />
          <p id={`${ids}-file-help`} class="help">
            YAML or JSON with <code>format: switchyard.routes/v1</code>, as <code>switchyard routes export</code> writes it.
          </p>
        </div>
        <div class="field">
          <label for={`${ids}-owner`}>Owner</label>
          <input
            id={`${ids}-owner`}
            value={owner}
            aria-describedby={`${ids}-owner-help`}
            onInput={(event) => (setOwner(event.currentTarget.value), changed())}
          />
          <p id={`${ids}-owner-help`} class="help">
            The team or tool whose routes the file holds; only its routes are planned. Empty: the routes without an owner.
          </p>
        </div>
        <div class="field field-check">
          <input
            id={`${ids}-prune`}
            type="checkbox"
            checked={prune}
            onChange={(event) => (setPrune(event.currentTarget.checked), changed())}
          />
          <label for={`${ids}-prune`}>Prune: delete the owner's routes the file does not name</label>
        </div>
        {problem && (
          <p id={fileError} class="callout callout-error" role="alert">
            {problem.line === undefined ? problem.reason : `Line ${problem.line}, column ${problem.column}: ${problem.reason}`}
          </p>
        )}
        {!read && (
          <div class="actions">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" class="primary">
              Show plan
            </button>
          </div>
        )}
      </form>
      {read && request && (
        <section aria-labelledby={`${ids}-plan`}>
          <h3 id={`${ids}-plan`}>Plan for {read.file.path}</h3>
          <PlanPanel
            key={read.serial}
            plan={() => api.applyRoutes({ ...request, dryRun: true })}
            write={(expectedRevision) => api.applyRoutes({ ...request, expectedRevision })}
            confirmLabel="Apply"
            onCancel={onClose}
            describe={(error) => refusal(error, read.file)}
            onDone={(result) => {
              announce(`Applied ${read.file.path} as revision ${result.revision}: ${counts(result, true)}.`);
              onClose();
            }}
          />
        </section>
      )}
    </Modal>
  );
}

/** The service's refusal, each bad entry at its line and column in the file (as the CLI prints it). */
function refusal(error: unknown, file: RoutesFile): readonly string[] | undefined {
  if (!(error instanceof SwitchyardRestError) || error.details.length === 0) return undefined;
  const place = (field: string) => file.locate(field).slice(file.path.length + 1);
  return [
    `${error.message} [${error.status} ${error.code}]`,
    ...error.details.map((detail) =>
      detail.field?.startsWith('routes')
        ? `Line ${lineColumn(place(detail.field))}: ${detail.field} ${detail.reason}`
        : `${detail.field ?? ''} ${detail.reason}`,
    ),
  ];
}

/** "7:11" as "7, column 11". */
function lineColumn(place: string): string {
  const [line, column] = place.split(':');
  return `${line}, column ${column}`;
}
