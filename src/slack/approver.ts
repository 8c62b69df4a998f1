// MCP calls approved in Slack (Slack's adapter of the approval port, kept with its channel): the configured approver (SLACK_APPROVER) gets a direct message with the exact call and
// yes/no buttons; only their own signed click answers, a channel the calling model does not read.
import type { Logger } from '../log.js';
import { answerButtons, codeBlocks, escapeMrkdwn, LIMITS, renderText, type SlackMessage } from './blocks.js';
import type { Turn } from './turn.js';
import type { ApprovalPageStore, OpenedApproval } from '../approval/page-store.js';

/** Bolt routes the two buttons on these; the button's value is the approval's id. */
export const APPROVAL_ACTION_IDS = { approve: 'forge_approval_approve', deny: 'forge_approval_deny' } as const;

/** The direct message: the exact call, never cut (a call too long for one message is left to the page), and the buttons. */
export function renderApprovalRequest(approval: OpenedApproval): SlackMessage | undefined {
  const blocks = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `:warning: *An assistant asks to run* \`${escapeMrkdwn(approval.operation)}\`` },
    },
    ...codeBlocks(approval.prompt),
    answerButtons({
      operation: approval.operation,
      answers: approval.answers,
      value: approval.id,
      actionIds: { yes: APPROVAL_ACTION_IDS.approve, no: APPROVAL_ACTION_IDS.deny },
      dialog: 'This runs exactly the call shown in the message, once.',
    }),
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Expires at ${new Date(approval.expiresAt).toISOString()}; after that nothing runs. Approve only if you asked for exactly this.`,
        },
      ],
    },
  ];
  if (blocks.length > LIMITS.blocks) return undefined;
  return { text: `Approve ${approval.operation}?`, blocks };
}

interface SlackApproverOptions {
  store: ApprovalPageStore;
  /**
   * The approver as SLACK_APPROVER names them: a user id (U012AB3CD), or team and user (T0123:U012AB3CD). Their
   * direct message is where approvals go, and only a click by that user of that team answers.
   */
  approver: string;
  /** The team the app is installed in (auth.test), for an approver named without one; undefined when unknown. */
  workspace(): Promise<string | undefined>;
  /** Posts a message to a channel (or a user id: their direct message with the app). */
  post(channel: string, message: SlackMessage): Promise<boolean>;
  /** Answers a click (on its response_url), replacing the request when the answer settles it. */
  reply(turn: Turn, message: SlackMessage, options: { replaceOriginal: boolean }): Promise<unknown>;
  log: Logger;
}

export class SlackApprover {
  private readonly user: string;
  private readonly team: () => Promise<string | undefined>;

  constructor(private readonly o: SlackApproverOptions) {
    const [team, user] = o.approver.includes(':') ? o.approver.split(':') : [undefined, o.approver];
    this.user = user;
    // Asked once: the installation's team does not change while the bot runs; a failed lookup is asked again.
    let known: string | undefined = team;
    this.team = async () => (known ??= await o.workspace().catch(() => undefined));
    o.store.onOpen((approval) => void this.ask(approval));
  }

  private async ask(approval: OpenedApproval): Promise<void> {
    const message = renderApprovalRequest(approval);
    if (!message) {
      this.o.log.warn(
        `slack approver: the call ${approval.operation} is too long for one message; it waits on the approval page only`,
      );
      return;
    }
    if (!(await this.o.post(this.user, message)))
      this.o.log.warn(`slack approver: could not send the approval of ${approval.operation} to ${this.o.approver}`);
  }

  /**
   * A click on Approve or Deny: only the approver's own counts (Slack signed who clicked). User ids are unique only
   * within a team, so the team must match too, as for every approval; when it is unknown, no click counts.
   */
  async click(turn: Turn, id: string, actionId: string): Promise<void> {
    const team = await this.team();
    if (turn.user.userId !== this.user || team === undefined || turn.user.teamId !== team) {
      if (team === undefined)
        this.o.log.warn(
          "slack approver: the app's team is unknown (auth.test failed); set SLACK_APPROVER as TEAM:USER",
        );
      await this.o.reply(
        turn,
        renderText('Only the configured approver (SLACK_APPROVER) can answer this; nothing changed.', 'warning'),
        { replaceOriginal: false },
      );
      return;
    }
    const decision = actionId === APPROVAL_ACTION_IDS.approve ? 'approve' : 'deny';
    const result = await this.o.store.answerFromChannel(id, decision, 'in Slack');
    this.o.log.info(`slack approver: ${decision} by ${turn.user.teamId}:${turn.user.userId}: ${result.message}`);
    const status = result.status !== 200 ? 'warning' : decision === 'approve' ? 'success' : 'canceled';
    await this.o.reply(turn, renderText(result.message, status), { replaceOriginal: result.status === 200 });
  }
}
