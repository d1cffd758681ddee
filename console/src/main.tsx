// Entry: restores this tab's session (if its token has not expired) and renders the app.
import { render } from 'preact';
import { App } from './app.js';
import { restoreSession } from './lib/session.js';
import './styles.css';

restoreSession();
render(<App />, document.getElementById('app')!);
