// Uploads an earlier page left unfinished (paused, or cut off by a reload or
// a closed tab). A browser cannot reopen a file by itself, so each offers a
// picker: choosing the same file again continues from the stored offset.
import { useEffect, useState } from 'preact/hooks';
import type { PreviousUpload } from 'tus-js-client';
import { discardStored, storedOffset, storedUploads } from '../../lib/upload-queue.js';
import { formatBytes } from '../../lib/format.js';

interface Stored {
  readonly upload: PreviousUpload;
  readonly offset: number | undefined;
}

export function StoredUploads({ onFiles, refresh }: { readonly onFiles: (files: File[]) => void; readonly refresh: number }) {
  const [items, setItems] = useState<readonly Stored[]>([]);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    void (async () => {
      const found: Stored[] = [];
      for (const upload of await storedUploads()) {
        const offset = await storedOffset(upload, controller.signal).catch(() => undefined);
        // Gone from the server (expired, finished, another workspace): forgotten by storedOffset.
        if (offset !== undefined) found.push({ upload, offset });
      }
      if (!controller.signal.aborted) setItems(found);
    })();
    return () => controller.abort();
  }, [refresh, version]);

  if (items.length === 0) return null;
  return (
    <section class="stored" aria-labelledby="stored-title">
      <h3 id="stored-title">Unfinished uploads</h3>
      <p class="help">Choose the same file again to continue where it stopped.</p>
      <ul>
        {items.map(({ upload, offset }, index) => {
          const name = upload.metadata['filename'] ?? 'unnamed file';
          const inputId = `resume-stored-${index}`;
          return (
            <li key={upload.urlStorageKey} class="stored-item">
              <span class="upload-name">{name}</span>
              <span>
                {formatBytes(offset ?? 0)} of {formatBytes(upload.size ?? 0)} sent
              </span>
              <input
                id={inputId}
                class="visually-hidden"
                type="file"
                onChange={(event) => {
                  const files = [...(event.currentTarget.files ?? [])];
                  event.currentTarget.value = '';
                  if (files.length > 0) onFiles(files);
                  setVersion((v) => v + 1);
                }}
              />
              <label class="button" for={inputId}>
                Resume {name}
              </label>
              <button
                type="button"
                aria-label={`Discard ${name}`}
                onClick={() => void discardStored(upload).then(() => setVersion((v) => v + 1))}
              >
                Discard
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
