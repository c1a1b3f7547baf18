// Small pieces several pages use.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';

/** Collapsible pretty JSON; serialised only while open (a closed one costs nothing per render). */
export function JsonView({ value, summary = 'JSON', open = false }) {
  const [shown, setShown] = useState(open);
  return html`<details class="json" open=${shown} onToggle=${(e) => setShown(e.currentTarget.open)}>
    <summary>${summary}</summary>
    ${shown && html`<pre>${JSON.stringify(value, null, 2)}</pre>`}
  </details>`;
}

/** An error from `api()` as the server's messages. */
export function ErrorText({ error }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${error.message ?? String(error)}</p>`;
}

/** `{data, error, reload}` of an async loader, re-run when `deps` change. */
export function useLoad(load, deps) {
  const [state, setState] = useState({ data: undefined, error: undefined });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ data, error: undefined }),
      (error) => live && setState((old) => ({ data: old.data, error })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** Sets the document title for the page that renders it. */
export function useTitle(title) {
  useEffect(() => {
    document.title = `${title} · svc`;
  }, [title]);
}
