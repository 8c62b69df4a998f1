// The entry of the stdio server's compiled copy (dist/mcp-stdio.cjs, built by tools/bundle.mjs and started by
// src/cli/stdio-start.ts): `forgeops mcp`'s arguments read and run as the CLI reads and runs them.
import { endQuietlyOnClosedOutput, reportFailure } from './commands.js';
import { runMcpCommand } from './mcp-stdio.js';

endQuietlyOnClosedOutput();
// process.argv is [node, dist/cli.js, 'mcp', …options].
runMcpCommand(process.argv.slice(3)).catch(reportFailure);
