// The match tester: a method and a concrete path in, the route that would
// handle it and its params out (or "no route"), asked of the server
// (GET /v1/routing:match) as you type, and again when the table changes.
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { errorText, SwitchyardRestError, type Api } from '../../lib/api.js';
import { useDebounced } from '../../lib/hooks.js';
import { missingScope } from '../../lib/session.js';
import { METHODS } from './RouteForm.js';

type Result =
  | { readonly kind: 'idle' }
  | {
      readonly kind: 'match';
      readonly method: string;
      readonly path: string;
      readonly handler: string;
      readonly id: string;
      readonly params: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'none' }
  | { readonly kind: 'error'; readonly text: string };

export function MatchTester({ api, revision }: { readonly api: Api; readonly revision: number }) {
  const [method, setMethod] = useState('GET');
  const [path, setPath] = useState('');
  const [result, setResult] = useState<Result>({ kind: 'idle' });
  const asked = useDebounced({ method, path }, 150);
  const refused = missingScope('routes:read');

  useEffect(() => {
    if (asked.path === '' || refused) return setResult({ kind: 'idle' });
    let live = true;
    api.matchRoute(asked.method, asked.path).then(
      (match) =>
        live &&
        setResult({
          kind: 'match',
          method: match.route.method,
          path: match.route.path,
          handler: match.route.handler,
          id: match.route.id,
          params: match.params,
        }),
      (error: unknown) => {
        if (!live) return;
        if (error instanceof SwitchyardRestError && error.status === 404) return setResult({ kind: 'none' });
        const text = errorText(error);
        if (text) setResult({ kind: 'error', text });
      },
    );
    return () => void (live = false);
  }, [asked.method, asked.path, revision]);

  const params = result.kind === 'match' ? Object.entries(result.params) : [];
  return (
    <section class="panel tester" aria-labelledby="tester-title">
      <h2 id="tester-title">Match tester</h2>
      <div class="inline-fields">
        <div class="field">
          <label for="test-method">Test method</label>
          <select id="test-method" value={method} onChange={(event) => setMethod(event.currentTarget.value)}>
            {METHODS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div class="field field-grow">
          <label for="test-path">Test path</label>
          <input
            id="test-path"
            type="text"
            value={path}
            placeholder="/users/42"
            spellcheck={false}
            onInput={(event) => setPath(event.currentTarget.value)}
          />
        </div>
      </div>
      <div class="tester-result" role="status" aria-live="polite" aria-atomic="true">
        {refused && <p class="scope-note">{refused}</p>}
        {result.kind === 'idle' && !refused && <p class="muted">Type a path such as /users/42 to see which route handles it.</p>}
        {result.kind === 'none' && (
          <p class="no-match">
            No route: nothing matches {asked.method} {asked.path}.
          </p>
        )}
        {result.kind === 'error' && <p class="field-error">{result.text}</p>}
        {result.kind === 'match' && (
          <div>
            <p>
              Matches <span class={`method method-${result.method.toLowerCase()}`}>{result.method}</span>{' '}
              <span class="mono">{result.path}</span> → <span class="mono">{result.handler}</span>
            </p>
            {params.length > 0 ? (
              <dl class="facts">
                {params.map(([name, value]) => (
                  <Fragment key={name}>
                    <dt>{name}</dt>
                    <dd class="mono">{value}</dd>
                  </Fragment>
                ))}
              </dl>
            ) : (
              <p class="muted">No params.</p>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
