// htm bound to preact's h: the page's JSX-like templates with no build step.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
