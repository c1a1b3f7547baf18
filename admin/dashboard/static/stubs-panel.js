// The stub list with editing through the admin routes (docs/imposters.md): add, edit as JSON (errors at their
// path), duplicate, move and delete; per-stub hit counts from the recorded requests the page holds.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { pathOf, summarisePredicate } from './outcome.js';
import { JsonView } from './widgets.js';
import { useStore } from './request-tail.js';

function responseKind(response) {
  return ['is', 'proxy', 'inject', 'fault'].find((kind) => kind in response) ?? (response._svc?.script ? '_svc.script' : 'is');
}

/** A stub as it is edited and sent back: without the read-back `_links`. */
export function editable(stub) {
  const { _links, ...rest } = stub;
  return rest;
}

const NEW_STUB = `{
  "predicates": [{ "equals": { "method": "GET", "path": "/new" } }],
  "responses": [{ "is": { "statusCode": 200, "body": "new stub" } }]
}`;

/** `line L, column C` of a JSON.parse error, from the position the engine names (the end for a cut-off text). */
function parseFailure(text, error) {
  const named = /line (\d+) column (\d+)/.exec(error.message);
  if (named) return { path: `line ${named[1]}, column ${named[2]}`, message: error.message };
  const at = /position (\d+)/.exec(error.message);
  const position = at ? Number(at[1]) : /end of JSON/.test(error.message) ? text.length : undefined;
  if (position === undefined) return { path: '$', message: error.message };
  const before = text.slice(0, position).split('\n');
  return { path: `line ${before.length}, column ${before[before.length - 1].length + 1}`, message: error.message };
}

/** The server's errors for a stub, each at the JSON path (within the stub) of the part it names. */
function errorsFor(err, stub) {
  const entries = err.entries?.length ? err.entries : [{ message: err.message }];
  return entries.map((entry) => ({ path: entry.path ?? (stub === undefined ? undefined : pathOf(stub, entry.source)) ?? '$', message: entry.message }));
}

function Errors({ errors }) {
  if (!errors?.length) return null;
  return html`<ul class="errors" role="alert">${errors.map((e) => html`<li><code class="path">${e.path}</code> ${e.message}</li>`)}</ul>`;
}

/** A JSON textarea that submits a parsed stub; parse errors and server errors show at their path. */
function StubEditor({ initial, submitLabel, onSubmit, onCancel, id }) {
  const [text, setText] = useState(initial);
  const [errors, setErrors] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    let stub;
    try {
      stub = JSON.parse(text);
    } catch (err) {
      setErrors([parseFailure(text, err)]);
      return;
    }
    setBusy(true);
    try {
      await onSubmit(stub);
      setErrors(undefined);
    } catch (err) {
      setErrors(errorsFor(err, stub));
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="stub-editor" onSubmit=${submit}>
    <label class="sr-only" for=${id}>stub JSON</label>
    <textarea id=${id} rows="10" spellcheck="false" value=${text} onInput=${(e) => setText(e.target.value)}></textarea>
    <${Errors} errors=${errors} />
    <div class="row">
      <button type="submit" disabled=${busy}>${submitLabel}</button>
      ${onCancel && html`<button type="button" onClick=${onCancel}>Cancel</button>`}
    </div>
  </form>`;
}

function Stub({ stub, index, count, hits, recording, act }) {
  const [editing, setEditing] = useState(false);
  const predicates = stub.predicates ?? [];
  const responses = stub.responses ?? [];
  const path = `/imposters/${act.port}/stubs/${index}`;
  const move = (to) => act.reorder(index, to);
  return html`<details class="stub" id=${`stub-${index}`} data-stub=${index} data-stub-id=${stub.id}>
    <summary>
      <strong>#${index}</strong>
      ${stub.id && html` <code class="muted stub-id">${stub.id}</code>`}
      ${' '}<span class="stub-summary">${predicates.length === 0 ? 'catch-all' : predicates.map(summarisePredicate).join(' · ')}</span>
      <span class="muted"> → ${responses.map(responseKind).join(', ')}</span>
      ${stub.space && html` <span class="badge">space ${stub.space}</span>`}
      ${stub.scenarioName && html` <span class="badge">scenario ${stub.scenarioName}${stub.requiredScenarioState ? ` @ ${stub.requiredScenarioState}` : ''}</span>`}
      ${recording && (hits > 0 ? html` <span class="badge on hits">${hits} ${hits === 1 ? 'hit' : 'hits'}</span>` : html` <span class="badge never">never matched</span>`)}
    </summary>
    <div class="stub-actions row">
      <button type="button" onClick=${() => setEditing(!editing)}>${editing ? 'Close editor' : 'Edit'}</button>
      <button type="button" onClick=${() => act.call('POST', `/imposters/${act.port}/stubs`, { stub: withoutId(stub), index: index + 1 })}>Duplicate</button>
      <button type="button" disabled=${index === 0} onClick=${() => move(index - 1)} aria-label=${`move stub ${index} up`}>Up</button>
      <button type="button" disabled=${index === count - 1} onClick=${() => move(index + 1)} aria-label=${`move stub ${index} down`}>Down</button>
      <button type="button" class="danger" onClick=${() => confirm(`Delete stub ${index}?`) && act.call('DELETE', path)}>Delete</button>
    </div>
    ${
      editing
        ? html`<${StubEditor} id=${`stub-json-${index}`} initial=${JSON.stringify(editable(stub), null, 2)} submitLabel="Save"
          onSubmit=${async (next) => {
            await act.call('PUT', path, next, true);
            setEditing(false);
          }} onCancel=${() => setEditing(false)} />`
        : html`<${JsonView} summary="stub JSON" value=${editable(stub)} />`
    }
  </details>`;
}

function withoutId(stub) {
  const { id, ...rest } = editable(stub);
  return rest;
}

export function StubsPanel({ port, stubs, store, recording, onChanged, onError }) {
  const [adding, setAdding] = useState(false);
  // Hit counts follow the tail, but a stub list need not repaint at the tail's frame rate.
  useStore(store, 1000);
  const act = {
    port,
    /** One admin call; `rethrow` hands the failure to the editor (errors at their path) instead of the page. */
    async call(method, path, body, rethrow = false) {
      try {
        await api(method, path, body);
        onError(undefined);
        onChanged();
      } catch (err) {
        if (rethrow) throw err;
        onError(err);
      }
    },
    reorder(from, to) {
      const next = stubs.map(editable);
      const [moved] = next.splice(from, 1);
      next.splice(to, 0, moved);
      return act.call('PUT', `/imposters/${port}/stubs`, { stubs: next });
    },
  };
  return html`<section class="panel" aria-labelledby="stubs-heading">
    <div class="title-row">
      <h2 id="stubs-heading">Stubs <span class="muted">${stubs.length}</span></h2>
      <button type="button" id="add-stub" onClick=${() => setAdding(!adding)}>${adding ? 'Cancel' : 'Add stub'}</button>
    </div>
    ${
      adding
      && html`<${StubEditor} id="new-stub-json" initial=${NEW_STUB} submitLabel="Add at the end"
      onSubmit=${async (stub) => {
        await act.call('POST', `/imposters/${port}/stubs`, { stub }, true);
        setAdding(false);
      }} />`
    }
    ${!recording && stubs.length > 0 && html`<p class="muted small">Hit counts need recordRequests.</p>`}
    ${stubs.map(
      (stub, index) =>
        html`<${Stub} key=${stub.id ?? index} stub=${stub} index=${index} count=${stubs.length} hits=${store.hitsOf(stub, index)} recording=${recording} act=${act} />`,
    )}
  </section>`;
}
