// Scenarios, spaces and flow-state keys of one imposter, each for a flow id (default: the port).
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { ErrorText, JsonView, useLoad } from './widgets.js';
import { useStore } from './request-tail.js';

const unique = (values) => [...new Set(values.filter((v) => typeof v === 'string' && v !== ''))];

function FlowIdInput({ value, onChange, id }) {
  return html`<label class="inline">flow id <input id=${id} value=${value} onChange=${(e) => onChange(e.target.value)} /></label>`;
}

function ScenarioRow({ scenario, onSet }) {
  const [state, setState] = useState(scenario.state ?? '');
  return html`<tr data-scenario=${scenario.name}><td>${scenario.name}</td><td><code>${scenario.state}</code></td>
    <td><form class="row" onSubmit=${(e) => {
      e.preventDefault();
      onSet(scenario.name, state);
    }}>
      <input aria-label=${`new state of ${scenario.name}`} value=${state} size="10" onInput=${(e) => setState(e.target.value)} />
      <button type="submit">Set</button>
    </form></td></tr>`;
}

/** One admin call from a panel: its failure shown by `setError`, its success followed by `reload`. */
const caller = (setError, reload) => async (method, path, body) => {
  try {
    await api(method, path, body);
    setError(undefined);
    reload();
  } catch (err) {
    setError(err);
  }
};

/** Traffic moves scenario and flow state: re-read at most once a second while requests arrive. */
function useTraffic(store) {
  useStore(store, 1000);
  return store.cursor;
}

export function ScenariosPanel({ port, stubs, store }) {
  const [flowId, setFlowId] = useState(String(port));
  const [error, setError] = useState(undefined);
  const traffic = useTraffic(store);
  const scenarios = useLoad(
    () => api('GET', `/imposters/${port}/scenarios?flowId=${encodeURIComponent(flowId)}`).then((r) => r.body.scenarios),
    [port, flowId, stubs, traffic],
  );
  if (!stubs.some((stub) => stub.scenarioName)) return null;
  const call = caller(setError, scenarios.reload);
  const setState = (name, state) => call('PUT', `/imposters/${port}/scenarios/${encodeURIComponent(name)}/state`, { state, flowId });
  return html`<section class="panel">
    <div class="title-row"><h2>Scenarios</h2><${FlowIdInput} id="scenario-flow" value=${flowId} onChange=${setFlowId} /></div>
    <${ErrorText} error=${error ?? scenarios.error} />
    <table><thead><tr><th>Scenario</th><th>State</th><th>Move to</th></tr></thead>
      <tbody>${(scenarios.data ?? []).map((s) => html`<${ScenarioRow} key=${`${s.name}=${s.state}`} scenario=${s} onSet=${setState} />`)}</tbody>
    </table>
    <button type="button" onClick=${() => call('POST', `/imposters/${port}/scenarios/reset`, { flowId })}>Reset scenarios</button>
    <button type="button" onClick=${scenarios.reload}>Refresh</button>
  </section>`;
}

export function SpacesPanel({ port, stubs }) {
  const spaces = unique(stubs.map((stub) => stub.space));
  const [selected, setSelected] = useState(undefined);
  const space = useLoad(
    () => (selected === undefined ? Promise.resolve(undefined) : api('GET', `/imposters/${port}/spaces/${encodeURIComponent(selected)}`).then((r) => r.body)),
    [port, selected],
  );
  if (spaces.length === 0) return null;
  return html`<section class="panel">
    <h2>Spaces <span class="muted">${spaces.length}</span></h2>
    <div class="chips">${spaces.map((name) => html`<button class=${name === selected ? 'chip active' : 'chip'} onClick=${() => setSelected(name)}>${name}</button>`)}</div>
    <${ErrorText} error=${space.error} />
    ${
      space.data
      && html`<div>
      <p>${space.data.stubs?.length ?? 0} stubs · ${space.data.numberOfRequests} requests ·
        ${' '}${(space.data.scenarios ?? []).map((s) => `${s.name}=${s.state}`).join(', ') || 'no scenarios'}</p>
      <${JsonView} summary="space detail" value=${space.data} />
    </div>`
    }
  </section>`;
}

/** Sets one key to a JSON value (a bare word is taken as a string). */
function KeyForm({ onSave }) {
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const submit = (event) => {
    event.preventDefault();
    let parsed;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = value;
    }
    onSave(key, parsed);
  };
  return html`<form class="row flow-key-form" onSubmit=${submit}>
    <input aria-label="key" placeholder="key" id="flow-key" value=${key} size="8" onInput=${(e) => setKey(e.target.value)} required />
    <input aria-label="JSON value" placeholder="JSON value" id="flow-value" value=${value} onInput=${(e) => setValue(e.target.value)} />
    <button type="submit">Set key</button>
  </form>`;
}

export function FlowStatePanel({ port, stubs, store }) {
  const [flowId, setFlowId] = useState(String(port));
  const [error, setError] = useState(undefined);
  const traffic = useTraffic(store);
  const values = useLoad(
    () => api('GET', `/admin/imposters/${port}/flow-state/${encodeURIComponent(flowId)}`).then((r) => r.body.values),
    [port, flowId, stubs, traffic],
  );
  const base = `/admin/imposters/${port}/flow-state/${encodeURIComponent(flowId)}`;
  const call = caller(setError, values.reload);
  const rows = Object.entries(values.data ?? {});
  return html`<section class="panel">
    <div class="title-row"><h2>Flow state <span class="muted" id="flow-state-count">${rows.length}</span></h2>
      <${FlowIdInput} id="flow-state-flow" value=${flowId} onChange=${setFlowId} /></div>
    <${ErrorText} error=${error ?? values.error} />
    ${
      values.data
      && (rows.length === 0
        ? html`<p class="muted">No keys in flow <code>${flowId}</code>.</p>`
        : html`<table><thead><tr><th>Key</th><th>Value</th><th></th></tr></thead>
        <tbody>${rows.map(
          ([key, value]) => html`<tr><td><code>${key}</code></td><td><code>${JSON.stringify(value)}</code></td>
          <td><button type="button" class="danger" aria-label=${`delete key ${key}`} onClick=${() => confirm(`Delete key ${key}?`) && call('DELETE', `${base}/${encodeURIComponent(key)}`)}>Delete</button></td></tr>`,
        )}</tbody>
      </table>`)
    }
    <${KeyForm} onSave=${(key, value) => call('PUT', `${base}/${encodeURIComponent(key)}`, { value })} />
    <button type="button" onClick=${values.reload}>Refresh</button>
  </section>`;
}
