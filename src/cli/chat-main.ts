// The entry of `forgeops chat`: its compiled copy's (dist/chat.cjs, see src/cli/compiled-copy.ts), or imported from the
// ES modules where there is none. One command and its exit status, or the prompt; its log only warns, as it shares
// the person's terminal.
import { commandOptions, endQuietlyOnClosedOutput, reportFailure, stringOption } from './commands.js';
import { setup } from './setup.js';

async function runChat(args: string[]): Promise<void> {
  const values = commandOptions('chat', args);
  if (!values) return;
  const { config, log } = await setup(stringOption(values, 'env-file'), true);
  const { runChatCli } = await import('../terminal/main.js');
  process.exitCode = await runChatCli(config, log, {
    line: stringOption(values, '_'),
    json: values.json === true,
    yes: values.yes === true,
    dryRun: values['dry-run'] === true,
  });
}

endQuietlyOnClosedOutput();
// process.argv is [node, dist/cli.js, 'chat', …words and options].
runChat(process.argv.slice(3)).catch(reportFailure);
