// The shell: sign-in until there is a token, then the header (workspace,
// scopes, navigation, sign out) and the current view. Assets is loaded with
// the app; Routes, Trash, Webhooks and Workspace are fetched when first opened (the
// budget of the first load is for sign-in and assets).
import { useEffect, useRef } from 'preact/hooks';
import { Announcer } from './ui/Announcer.js';
import { Lazy } from './ui/Lazy.js';
import { SignIn } from './views/SignIn.js';
import { AssetsView } from './views/assets/AssetsView.js';
import { claims, signOut, token } from './lib/session.js';
import { currentView, hrefOf, navigate, type ViewName } from './lib/router.js';
import { dismissNotice, notice } from './lib/announce.js';

const loadRoutes = () => import('./views/routes/RoutesView.js').then((module) => module.RoutesView);
const loadTrash = () => import('./views/trash/TrashView.js').then((module) => module.TrashView);
const loadWebhooks = () => import('./views/webhooks/WebhooksView.js').then((module) => module.WebhooksView);
const loadWorkspace = () => import('./views/workspace/WorkspaceView.js').then((module) => module.WorkspaceView);
const LAZY_VIEWS = { routes: loadRoutes, trash: loadTrash, webhooks: loadWebhooks, workspace: loadWorkspace } as const;

const TITLES: Record<ViewName, string> = {
  assets: 'Assets',
  routes: 'Routes',
  trash: 'Trash',
  webhooks: 'Webhooks',
  workspace: 'Workspace',
};

export function App() {
  const signedIn = token.value !== null && claims.value !== null;
  const view = currentView.value;

  useEffect(() => {
    document.title = signedIn ? `${TITLES[view]} · Switchyard console` : 'Sign in · Switchyard console';
  }, [signedIn, view]);

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      {signedIn ? <SignedIn view={view} /> : <SignIn />}
      <Announcer />
    </>
  );
}

function SignedIn({ view }: { readonly view: ViewName }) {
  const current = claims.value!;
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);

  // After navigating, focus moves to the new view's content (as a page load would put it at the top),
  // and an error about the view left behind goes with it.
  useEffect(() => {
    if (first.current) return void (first.current = false);
    if (notice.peek()?.kind === 'error') dismissNotice();
    mainRef.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [view]);

  return (
    <div class="shell">
      <header class="topbar">
        <span class="brand">Switchyard</span>
        <nav aria-label="Console">
          <ul>
            {(Object.keys(TITLES) as ViewName[]).map((name) => (
              <li key={name}>
                <a
                  href={hrefOf(name)}
                  aria-current={view === name ? 'page' : undefined}
                  onClick={(event) => {
                    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
                    event.preventDefault();
                    navigate(hrefOf(name));
                  }}
                >
                  {TITLES[name]}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="identity">
          <span>
            Workspace <strong>{current.workspace}</strong>
            {current.subject && <> · {current.subject}</>}
          </span>
          <span class="scopes">
            Scopes:{' '}
            {current.scopes.length > 0 ? (
              current.scopes.map((scope) => (
                <span class="chip" key={scope}>
                  {scope}
                </span>
              ))
            ) : (
              <span class="chip">no scopes</span>
            )}
          </span>
          <button type="button" onClick={() => signOut('You signed out.')}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={mainRef} class="content">
        {view === 'assets' ? <AssetsView /> : <Lazy key={view} load={LAZY_VIEWS[view]} />}
      </main>
    </div>
  );
}
