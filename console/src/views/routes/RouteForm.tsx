// Create a route, or edit one: Method, Path, Middleware, Handler. The
// server validates; its 400 details show at their field, and a 409 names
// the route that already has this method and path shape.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText, SwitchyardRestError, type Api } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { conflictOf } from '../../lib/route-shape.js';
import { missingScope } from '../../lib/session.js';
import { ScopeNote } from '../../ui/ScopeNote.js';
import type { Route } from './live-table.js';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
type Field = 'method' | 'path' | 'middleware' | 'handler';
const FIELDS: readonly Field[] = ['method', 'path', 'middleware', 'handler'];

export interface RouteFormProps {
  readonly api: Api;
  /** The route being edited, or null to create one. */
  readonly editing: Route | null;
  readonly routes: readonly Route[];
  readonly onDone: () => void;
}

const middlewareList = (text: string) =>
  text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);

export function RouteForm({ api, editing, routes, onDone }: RouteFormProps) {
  const [method, setMethod] = useState('GET');
  const [path, setPath] = useState('');
  const [middleware, setMiddleware] = useState('');
  const [handler, setHandler] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);
  const pathInput = useRef<HTMLInputElement>(null);
  const refused = missingScope('routes:write');

  useEffect(() => {
    setMethod(editing?.method ?? 'GET');
    setPath(editing?.path ?? '');
    setMiddleware(editing?.middleware.join(', ') ?? '');
    setHandler(editing?.handler ?? '');
    setErrors({});
    if (editing) pathInput.current?.focus();
  }, [editing?.id]);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    const fields = { method, path, middleware: middlewareList(middleware), handler };
    try {
      if (editing) {
        // Only what changed: a PATCH of the same path would be checked against the route itself for nothing.
        const changes = {
          ...(method !== editing.method ? { method } : {}),
          ...(path !== editing.path ? { path } : {}),
          ...(fields.middleware.join(',') !== editing.middleware.join(',') ? { middleware: fields.middleware } : {}),
          ...(handler !== editing.handler ? { handler } : {}),
        };
        await api.updateRoute(editing.id, changes);
        announce(`Saved route ${method} ${path}.`);
        onDone();
      } else {
        const created = await api.createRoute(fields);
        announce(`Created route ${created.method} ${created.path}.`);
        setPath('');
        setHandler('');
        setMiddleware('');
      }
    } catch (error) {
      if (error instanceof SwitchyardRestError && error.status === 400 && error.details.length > 0) {
        const found: Partial<Record<Field, string>> = {};
        for (const detail of error.details) {
          // middleware[2] belongs to the Middleware field.
          const field = FIELDS.find((name) => detail.field === name || detail.field.startsWith(`${name}[`));
          if (field)
            found[field] = [found[field], detail.field === field ? detail.reason : `${detail.field}: ${detail.reason}`]
              .filter(Boolean)
              .join('; ');
        }
        setErrors(found);
      } else if (error instanceof SwitchyardRestError && error.status === 409) {
        const other = conflictOf(routes, method, path, editing?.id);
        const text = other
          ? `${other.method} ${other.path} (${other.id}, handler ${other.handler}) already has this method and path shape.`
          : `Another route already has this method and path shape: ${error.message}`;
        setErrors({ path: text });
      }
      const text = errorText(error, editing ? 'Saving the route' : 'Creating the route');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  }

  const invalid = (field: Field) =>
    errors[field]
      ? { 'aria-invalid': 'true' as const, 'aria-describedby': `route-${field}-error route-${field}-help` }
      : { 'aria-describedby': `route-${field}-help` };
  const message = (field: Field) => (
    <p id={`route-${field}-error`} class="field-error">
      {errors[field] ?? ''}
    </p>
  );

  return (
    <form class="panel route-form" onSubmit={(event) => void submit(event)} aria-labelledby="route-form-title" noValidate>
      <h2 id="route-form-title">{editing ? `Edit ${editing.method} ${editing.path}` : 'New route'}</h2>
      <fieldset disabled={!!refused || busy} class="route-fields">
        <div class="field">
          <label for="route-method">Method</label>
          <select id="route-method" value={method} onChange={(event) => setMethod(event.currentTarget.value)} {...invalid('method')}>
            {METHODS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          <span id="route-method-help" class="visually-hidden">
            HTTP method
          </span>
          {message('method')}
        </div>
        <div class="field field-grow">
          <label for="route-path">Path</label>
          <input
            id="route-path"
            ref={pathInput}
            type="text"
            required
            value={path}
            placeholder="/users/:id"
            spellcheck={false}
            onInput={(event) => setPath(event.currentTarget.value)}
            {...invalid('path')}
          />
          <span id="route-path-help" class="help">
            :name for a parameter, * as the last segment for the rest
          </span>
          {message('path')}
        </div>
        <div class="field">
          <label for="route-middleware">Middleware</label>
          <input
            id="route-middleware"
            type="text"
            value={middleware}
            placeholder="auth, audit"
            spellcheck={false}
            onInput={(event) => setMiddleware(event.currentTarget.value)}
            {...invalid('middleware')}
          />
          <span id="route-middleware-help" class="help">
            names, comma-separated, in order
          </span>
          {message('middleware')}
        </div>
        <div class="field">
          <label for="route-handler">Handler</label>
          <input
            id="route-handler"
            type="text"
            required
            value={handler}
            placeholder="users.show"
            spellcheck={false}
            onInput={(event) => setHandler(event.currentTarget.value)}
            {...invalid('handler')}
          />
          <span id="route-handler-help" class="help">
            the handler's name
          </span>
          {message('handler')}
        </div>
      </fieldset>
      <div class="actions">
        {editing && (
          <button type="button" onClick={onDone}>
            Cancel edit
          </button>
        )}
        <button type="submit" class="primary" disabled={!!refused || busy} aria-describedby={refused ? 'route-scope' : undefined}>
          {editing ? 'Save' : 'Create route'}
        </button>
      </div>
      <ScopeNote id="route-scope" reason={refused} />
    </form>
  );
}
