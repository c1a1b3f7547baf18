// The near-miss report: per candidate stub, closest first, each failed predicate with its operator,
// field, expected and actual values, differences highlighted. Shared by recorded misses and the
// test-request form; the data is the explain call's debug report (`matchResult.candidates`).
import { html } from './html.js';
import { describePredicate } from './outcome.js';
import { diffParts } from './diff.js';

const ELIGIBILITY = {
  skippedSpace: 'skipped: it belongs to another space',
  skippedScenarioState: 'skipped: its scenario is in another state',
};

/** A link to a stub in the stub list, by id where it has one. */
export function StubLink({ index, id }) {
  const label = id !== undefined ? `stub ${id}` : `stub #${index}`;
  return html`<a class="stub-link" href=${`#stub-${index}`} data-stub-index=${index}>${label}</a>`;
}

function Marked({ parts, kind }) {
  return html`<code class=${`value ${kind}`}>${parts.map((part) => (part.same ? part.text : html`<mark>${part.text}</mark>`))}</code>`;
}

function Mismatch({ mismatch }) {
  const absent = !('actual' in mismatch);
  const shown = 'selected' in mismatch ? mismatch.selected : mismatch.actual;
  const parts = diffParts(mismatch.expected, absent ? '' : shown);
  return html`<li class="mismatch">
    <div><span class="operator">${mismatch.operator}</span> <code class="field">${mismatch.field || 'request'}</code>
      ${mismatch.selector && html` <span class="muted">(${mismatch.selector})</span>`}</div>
    <div class="pair"><span class="label">expected</span><${Marked} parts=${parts.expected} kind="expected" /></div>
    <div class="pair"><span class="label">actual</span>${absent ? html`<em class="muted">absent from the request</em>` : html`<${Marked} parts=${parts.actual} kind="actual" />`}</div>
    ${'selected' in mismatch && html`<div class="pair"><span class="label">from</span><code class="value muted">${String(mismatch.actual).slice(0, 300)}</code></div>`}
  </li>`;
}

function Candidate({ candidate, stub, open }) {
  const eligibility = ELIGIBILITY[candidate.eligibility];
  return html`<details class="candidate" open=${open}>
    <summary><${StubLink} index=${candidate.index} id=${candidate.id} />
      <span class="muted"> · ${candidate.satisfied} of ${candidate.total} predicates hold</span>
      ${eligibility && html` <span class="badge">${eligibility}</span>`}</summary>
    <ol class="failed">
      ${candidate.failed.map(
        (check) => html`<li>
        <div>predicate ${check.index}: <code>${describePredicate(stub?.predicates?.[check.index])}</code>${check.error ? html` <span class="error">threw: ${check.error}</span>` : ''}</div>
        <ul class="mismatches">${check.mismatches.map((mismatch) => html`<${Mismatch} mismatch=${mismatch} />`)}</ul>
      </li>`,
      )}
      ${candidate.failed.length === 0 && eligibility && html`<li>every predicate holds; ${eligibility}</li>`}
    </ol>
  </details>`;
}

/** `matchResult` of an explain call; `stubs` the imposter's current stubs (for predicate names). */
export function Explanation({ result, stubs }) {
  const candidates = result.candidates ?? [];
  if (result.matched) {
    return html`<div class="explanation match">
      <p><strong>matched <${StubLink} index=${result.stubIndex} id=${result.stubId} /></strong></p>
      ${
        candidates.length > 0
        && html`<details class="tried"><summary>${candidates.length} earlier ${candidates.length === 1 ? 'stub' : 'stubs'} did not match</summary>
        ${candidates.map((candidate) => html`<${Candidate} candidate=${candidate} stub=${stubs[candidate.index]} open=${false} />`)}
      </details>`
      }
    </div>`;
  }
  return html`<div class="explanation miss">
    <p><strong>no stub matched</strong>${result.reason && result.reason !== 'no stub matched the request' ? `: ${result.reason}` : ''}${
      candidates.length > 0 ? html` <span class="muted">· closest first</span>` : ''
    }</p>
    ${candidates.map((candidate, i) => html`<${Candidate} candidate=${candidate} stub=${stubs[candidate.index]} open=${i === 0} />`)}
  </div>`;
}
