import { render } from 'preact';

function App() {
  return <main><h1>Switchyard console</h1></main>;
}

render(<App />, document.getElementById('app')!);
