// Imposters: the list with enable/disable/delete, and creation from pasted JSON.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { api, readEventStream } from './api.js';
import { pathOf } from './outcome.js';
import { ErrorText, useLoad, useTitle } from './widgets.js';

/** Counts move with traffic (no event for an unrecorded request): re-read this often while the page is visible. */
const POLL_MS = 3000;

/** Re-runs `reload` on every lifecycle event from `/events` and every POLL_MS while the tab is visible. */
function useLiveList(reload) {
  const latest = useRef(reload);
  latest.current = reload;
  useEffect(() => {
    const controller = new AbortController();
    let stopped = false;
    (async () => {
      while (!stopped) {
        try {
          await readEventStream('/events?types=lifecycle', (event) => event.event === 'imposter' && latest.current(), controller.signal);
        } catch {
          // Dropped or refused: try again shortly.
        }
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    })();
    const timer = setInterval(() => document.visibilityState === 'visible' && latest.current(), POLL_MS);
    return () => {
      stopped = true;
      controller.abort();
      clearInterval(timer);
    };
  }, []);
}

function ImposterRow({ imposter, onChanged, onError }) {
  const act = async (method, path) => {
    try {
      await api(method, path);
      onChanged();
    } catch (err) {
      onError(err);
    }
  };
  const { port } = imposter;
  return html`<tr data-port=${port}>
    <td><a href=${`/imposters/${port}`}>${port}</a></td>
    <td>${imposter.protocol}</td>
    <td>${imposter.name ?? ''}</td>
    <td><span class=${imposter.enabled ? 'badge on' : 'badge off'}>${imposter.enabled ? 'enabled' : 'disabled'}</span></td>
    <td class="num" data-label="stubs">${imposter.stubCount}</td>
    <td class="num requests" data-label="requests">${imposter.numberOfRequests}</td>
    <td class="num" data-label="warnings">${imposter.warningCount > 0 ? html`<span class="warn">${imposter.warningCount}</span>` : 0}</td>
    <td class="actions">
      ${
        imposter.enabled
          ? html`<button type="button" onClick=${() => act('POST', `/imposters/${port}/disable`)}>Disable</button>`
          : html`<button type="button" onClick=${() => act('POST', `/imposters/${port}/enable`)}>Enable</button>`
      }
      <button type="button" class="danger" onClick=${() => confirm(`Delete imposter ${port}?`) && act('DELETE', `/imposters/${port}`)}>Delete</button>
    </td>
  </tr>`;
}

/** The server's validation errors, each next to the JSON path of the part of the config it names. */
function CreateErrors({ entries, config }) {
  return html`<ul class="errors" role="alert">
    ${entries.map((entry) => {
      const path = entry.path ?? (config === undefined ? undefined : pathOf(config, entry.source));
      return html`<li><code class="path">${path ?? '$'}</code> ${entry.message}</li>`;
    })}
  </ul>`;
}

const EXAMPLE = `{
  "protocol": "http",
  "recordRequests": true,
  "stubs": [
    { "predicates": [{ "equals": { "path": "/hello" } }],
      "responses": [{ "is": { "statusCode": 200, "body": "hi" } }] }
  ]
}`;

function CreateForm({ onCreated }) {
  const [text, setText] = useState(EXAMPLE);
  const [failure, setFailure] = useState(undefined);
  const submit = async (event) => {
    event.preventDefault();
    let config;
    try {
      config = JSON.parse(text);
    } catch {
      config = undefined;
    }
    try {
      const created = await api('POST', '/imposters', text);
      setFailure(undefined);
      onCreated(created.body.port);
    } catch (err) {
      setFailure({ entries: err.entries?.length ? err.entries : [{ message: err.message }], config });
    }
  };
  return html`<form class="create" onSubmit=${submit}>
    <details>
      <summary>Create an imposter from JSON</summary>
      <label class="sr-only" for="create-json">imposter JSON</label>
      <textarea id="create-json" rows="12" spellcheck="false" value=${text} onInput=${(e) => setText(e.target.value)}></textarea>
      <button type="submit">Create</button>
      ${failure && html`<${CreateErrors} ...${failure} />`}
    </details>
  </form>`;
}

export function ImpostersPage() {
  const list = useLoad(() => api('GET', '/_dashboard/api/imposters').then((r) => r.body.imposters), []);
  const [actionError, setActionError] = useState(undefined);
  useTitle('Imposters');
  useLiveList(list.reload);
  const changed = () => {
    setActionError(undefined);
    list.reload();
  };
  const imposters = list.data ?? [];
  return html`<section>
    <div class="title-row">
      <h1 tabindex="-1">Imposters <span class="muted" id="imposter-count">${list.data ? imposters.length : ''}</span></h1>
    </div>
    <${ErrorText} error=${list.error ?? actionError} />
    <${CreateForm} onCreated=${changed} />
    <table class="imposters">
      <thead><tr><th>Port</th><th>Protocol</th><th>Name</th><th>State</th><th class="num">Stubs</th><th class="num">Requests</th><th class="num">Warnings</th><th></th></tr></thead>
      <tbody>
        ${imposters.map((imposter) => html`<${ImposterRow} key=${imposter.port} imposter=${imposter} onChanged=${changed} onError=${setActionError} />`)}
      </tbody>
    </table>
    ${list.data && imposters.length === 0 && html`<p class="muted">No imposters yet.</p>`}
  </section>`;
}
