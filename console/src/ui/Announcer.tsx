// The live regions: a polite one for what went well, an assertive one for
// errors. Both are in the page from the start (a region added with its text
// is not reliably announced); the visible notice mirrors the latest message.
import { dismissNotice, notice } from '../lib/announce.js';

export function Announcer() {
  const current = notice.value;
  return (
    <div class="notices">
      <div role="status" aria-live="polite" class={current?.kind === 'status' ? 'notice notice-status' : 'notice-empty'}>
        {current?.kind === 'status' ? current.text : ''}
      </div>
      <div role="alert" aria-live="assertive" class={current?.kind === 'error' ? 'notice notice-error' : 'notice-empty'}>
        {current?.kind === 'error' ? (
          <>
            <span>{current.text}</span>
            <button type="button" class="link-button" onClick={dismissNotice}>
              Dismiss
            </button>
          </>
        ) : (
          ''
        )}
      </div>
    </div>
  );
}
