// Stops an npm lifecycle script (postinstall, pretest) on a Node the project does not support,
// with the same one line as svc, before it does any work. Importing this module is the check.
import { unsupportedNodeReason } from '../bin/runtime.js';

const unsupported = unsupportedNodeReason();
if (unsupported) {
  console.error(unsupported);
  process.exit(1);
}
