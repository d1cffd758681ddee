// The drop zone and the "Upload files" picker, the settings new uploads get
// (label, visibility), the workspace policy they are checked against, and
// the list of uploads in progress.
import { useState } from 'preact/hooks';
import { addFiles, clearFinished, jobs } from '../../lib/upload-queue.js';
import { policyRefusal, policyState } from '../../lib/policy.js';
import { missingScope } from '../../lib/session.js';
import { formatBytes } from '../../lib/format.js';
import { ScopeNote } from '../../ui/ScopeNote.js';
import { UploadItem } from './UploadItem.js';
import { StoredUploads } from './StoredUploads.js';

export function UploadPanel({ onOpen }: { readonly onOpen: (id: string) => void }) {
  const [label, setLabel] = useState('');
  const [visibility, setVisibility] = useState<'' | 'public' | 'private'>('');
  const [dragging, setDragging] = useState(false);
  const [added, setAdded] = useState(0);
  const refused = missingScope('assets:write');
  const list = jobs.value;

  const take = (files: File[]) => {
    if (refused || files.length === 0) return;
    addFiles(files, { label, visibility }, policyRefusal);
    setAdded((n) => n + 1);
  };

  return (
    <section class="panel upload-panel" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload</h2>
      <div
        class={`dropzone${dragging ? ' dropzone-active' : ''}${refused ? ' dropzone-disabled' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          if (!refused) setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          take([...(event.dataTransfer?.files ?? [])]);
        }}
      >
        <svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">
          <path
            d="M12 16V4m0 0l-5 5m5-5l5 5M4 16v4h16v-4"
            fill="none"
            stroke="currentColor"
            stroke-width="1.8"
            stroke-linecap="round"
            stroke-linejoin="round"
          />
        </svg>
        <span>Drop files here, or</span>
        <input
          id="upload-files"
          class="visually-hidden"
          type="file"
          multiple
          disabled={!!refused}
          aria-describedby={refused ? 'upload-scope' : 'upload-policy'}
          onChange={(event) => {
            const files = [...(event.currentTarget.files ?? [])];
            event.currentTarget.value = '';
            take(files);
          }}
        />
        <label for="upload-files" class="button primary">
          Upload files
        </label>
      </div>
      <ScopeNote id="upload-scope" reason={refused} />
      <div class="upload-settings">
        <div class="field">
          <label for="upload-label">Label for uploads</label>
          <input
            id="upload-label"
            type="text"
            maxLength={256}
            value={label}
            onInput={(event) => setLabel(event.currentTarget.value)}
            disabled={!!refused}
          />
        </div>
        <div class="field">
          <label for="upload-visibility">Visibility for uploads</label>
          <select
            id="upload-visibility"
            value={visibility}
            onChange={(event) => setVisibility(event.currentTarget.value as typeof visibility)}
            disabled={!!refused}
          >
            <option value="">Workspace default</option>
            <option value="public">Public</option>
            <option value="private">Private</option>
          </select>
        </div>
      </div>
      <PolicySummary />
      <StoredUploads onFiles={take} refresh={added} />
      {list.length > 0 && (
        <>
          <ul class="uploads" aria-label="Uploads">
            {list.map((job) => (
              <UploadItem key={job.key} job={job} onOpen={onOpen} />
            ))}
          </ul>
          <button type="button" class="link-button" onClick={clearFinished}>
            Clear finished
          </button>
        </>
      )}
    </section>
  );
}

function PolicySummary() {
  const state = policyState.value;
  return (
    <p id="upload-policy" class="help">
      {state.kind === 'loading' && 'Reading the workspace policy…'}
      {state.kind === 'unknown' && state.reason}
      {state.kind === 'known' && (
        <>
          Workspace policy: files up to {formatBytes(state.policy.maxUploadBytes)}; types{' '}
          {state.policy.allowedTypes.length === 0 ? 'any' : state.policy.allowedTypes.join(', ')}; new files are{' '}
          {state.policy.defaultVisibility} unless you choose.
        </>
      )}
    </p>
  );
}
