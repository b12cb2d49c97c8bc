// Untrusted text made safe for a terminal line: the helpers live with the output streams (cli-io).
export { MAX_SHOWN_LENGTH, escapeControls, showText } from '../cli-io.js';
