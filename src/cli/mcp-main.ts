// The entry of `forgeops mcp`: its compiled copy's (dist/mcp.cjs, see src/cli/compiled-copy.ts), or imported from the
// ES modules where there is none. Reads the command's options as the CLI reads them, and fails as it fails.
import { endQuietlyOnClosedOutput, reportFailure } from './commands.js';
import { runMcpCommand } from './mcp-stdio.js';

endQuietlyOnClosedOutput();
// process.argv is [node, dist/cli.js, 'mcp', …options].
runMcpCommand(process.argv.slice(3)).catch(reportFailure);
