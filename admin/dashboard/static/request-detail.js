// One recorded request: what was served (status, latency, the stub that answered) and, for a miss,
// the near-miss report of the explain call against the current stubs.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { outcomeSentences } from './outcome.js';
import { Explanation, StubLink } from './explain-view.js';
import { Time } from './time.js';
import { ErrorText, JsonView } from './widgets.js';

/** The whole journal entry (headers, body, `tried`) when the list holds only its summary. */
function useFullRequest(port, entry) {
  const [full, setFull] = useState(undefined);
  useEffect(() => {
    setFull(undefined);
    if (!entry?.partial) return undefined;
    let live = true;
    api('GET', `/_dashboard/api/imposters/${port}/requests/${entry.index}`).then(
      (r) => live && setFull(r.body.request),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [port, entry?.index]);
  return entry?.partial ? full : entry?.request;
}

function useExplanation(port, entry) {
  const [state, setState] = useState({});
  useEffect(() => {
    if (entry?.kind !== 'miss') {
      setState({});
      return undefined;
    }
    let live = true;
    setState({ loading: true });
    api('POST', `/_dashboard/api/imposters/${port}/explain`, { index: entry.index }).then(
      (r) => live && setState({ result: r.body.matchResult }),
      (error) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [port, entry?.index]);
  return state;
}

/** The stub a recorded hit names: by id when the list still has it (indexes shift), else by its index then. */
function servedBy(entry, stubs) {
  if (entry.stubId !== undefined) {
    const index = stubs.findIndex((stub) => stub.id === entry.stubId);
    if (index >= 0) return { index, id: entry.stubId };
    return { gone: true, id: entry.stubId };
  }
  return { index: entry.stubIndex };
}

export function RequestDetail({ port, entry, stubs, onClose }) {
  const explanation = useExplanation(port, entry);
  const request = useFullRequest(port, entry);
  if (!entry) return null;
  const tried = request ? outcomeSentences(request.matchOutcome, stubs).slice(1) : [];
  const served = entry.kind === 'match' ? servedBy(entry, stubs) : undefined;
  return html`<section class="panel detail" id="request-detail" aria-labelledby="detail-heading">
    <div class="title-row">
      <h2 id="detail-heading"><span class="method">${entry.method}</span> <code>${entry.target}</code></h2>
      <button type="button" onClick=${onClose} aria-label="close the request detail">Close</button>
    </div>
    <dl class="facts">
      <dt>received</dt><dd><${Time} ms=${entry.time} withDate /></dd>
      <dt>served</dt><dd>${entry.status !== undefined ? `${entry.status} in ${entry.latencyMs} ms` : html`<span class="muted">not recorded</span>`}</dd>
      <dt>stub</dt><dd>${
        served
          ? served.gone
            ? html`stub <code>${served.id}</code> <span class="muted">(since removed)</span>`
            : html`<${StubLink} index=${served.index} id=${served.id} />`
          : entry.kind === 'miss'
            ? 'no stub matched (default response)'
            : html`<span class="muted">no match outcome recorded</span>`
      }</dd>
      ${entry.flowId !== '' && html`<dt>flow id</dt><dd><code>${entry.flowId}</code></dd>`}
      <dt>journal index</dt><dd>${entry.index}</dd>
    </dl>
    ${
      entry.kind === 'match'
      && tried.length > 0
      && html`<details class="tried"><summary>${tried.length} ${tried.length === 1 ? 'candidate' : 'candidates'} tried before it</summary>
      <ul class="tried">${tried.map((line) => html`<li>${line.text}</li>`)}</ul></details>`
    }
    ${entry.kind === 'miss' && html`<h3>Why no stub matched <span class="muted">(against the current stubs)</span></h3>`}
    ${explanation.loading && html`<p class="muted">Explaining…</p>`}
    <${ErrorText} error=${explanation.error} />
    ${explanation.result && html`<${Explanation} result=${explanation.result} stubs=${stubs} />`}
    ${request && html`<${JsonView} summary="request JSON" value=${request} />`}
  </section>`;
}
