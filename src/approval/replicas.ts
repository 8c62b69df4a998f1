// Requests from one replica to another by name, over the shared store's pub/sub (Redis): how an approval answer that
// reached another replica than the one where its call waits (a Slack click, which no balancer can route; an approval
// page behind plain round robin) reaches that replica, and how its reply comes back.
import { randomUUID } from 'node:crypto';
import type { PeerChannel } from '../state/store.js';

/** How long an asking replica waits for the reply: a human waits on it, and a local answer takes milliseconds. */
const ASK_TIMEOUT_MS = 3_000;
/** Questions one replica may have out at once: each is a human's click, so more means a flood. */
const MAX_PENDING_ASKS = 256;
/** A question or reply larger than this is not one of ours (an approval answer is a few short fields). */
const MAX_MESSAGE_CHARS = 64 * 1024;

/** What came back from another replica: its handler's answer, or that no replica of that name listens. */
type AskResult = { reached: true; answer: unknown } | { reached: false };

export class ReplicaTimeoutError extends Error {
  constructor(
    readonly replica: string,
    readonly ms: number,
  ) {
    super(`replica ${replica} did not reply within ${ms / 1000} s`);
    this.name = 'ReplicaTimeoutError';
  }
}

interface Question {
  kind: 'ask';
  id: string;
  from: string;
  topic: string;
  body: unknown;
}
interface Reply {
  kind: 'reply';
  id: string;
  answer?: unknown;
  error?: string;
}
type Handler = (body: unknown) => unknown;

interface Waiting {
  resolve(result: AskResult): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** A replica's own channel: questions for it and replies to its questions both arrive there. */
function channelOf(replica: string): string {
  return `replica:${replica}`;
}

function parse(text: string): Question | Reply | undefined {
  if (text.length > MAX_MESSAGE_CHARS) return undefined;
  try {
    const message = JSON.parse(text) as { kind?: unknown; id?: unknown; from?: unknown; topic?: unknown };
    if (typeof message.id !== 'string') return undefined;
    if (message.kind === 'ask' && typeof message.from === 'string' && typeof message.topic === 'string')
      return message as unknown as Question;
    if (message.kind === 'reply') return message as unknown as Reply;
  } catch {
    // Not ours: ignored, as anything else on the channel.
  }
  return undefined;
}

export class ReplicaRequests {
  private readonly handlers = new Map<string, Handler>();
  private readonly waiting = new Map<string, Waiting>();
  private stopListening: (() => Promise<void>) | undefined;

  private constructor(
    private readonly channel: PeerChannel,
    readonly self: string,
    private readonly timeoutMs: number,
  ) {}

  /** Starts listening on this replica's channel. */
  static async open(
    channel: PeerChannel,
    self: string,
    options: { timeoutMs?: number } = {},
  ): Promise<ReplicaRequests> {
    const requests = new ReplicaRequests(channel, self, options.timeoutMs ?? ASK_TIMEOUT_MS);
    requests.stopListening = await channel.listen(channelOf(self), (text) => requests.heard(text));
    return requests;
  }

  /** Answers the questions other replicas send on `topic`; what the handler returns (or resolves to) is the reply. */
  handle(topic: string, handler: Handler): void {
    this.handlers.set(topic, handler);
  }

  /**
   * Asks replica `to` a question on `topic`. `{ reached: false }` when no replica of that name listens (it has
   * stopped); rejects when it does not reply in time, or when the store cannot be reached.
   */
  async ask(to: string, topic: string, body: unknown): Promise<AskResult> {
    if (this.waiting.size >= MAX_PENDING_ASKS)
      throw new Error(`${MAX_PENDING_ASKS} questions to other replicas are already waiting; try again shortly`);
    const id = randomUUID();
    const reply = new Promise<AskResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new ReplicaTimeoutError(to, this.timeoutMs));
      }, this.timeoutMs);
      timer.unref();
      this.waiting.set(id, { resolve, reject, timer });
    });
    // Registered before publishing: the reply can arrive before PUBLISH itself returns.
    let heard: number;
    try {
      heard = await this.channel.publish(
        channelOf(to),
        JSON.stringify({ kind: 'ask', id, from: this.self, topic, body } satisfies Question),
      );
    } catch (error) {
      this.settle(id)?.reject(error as Error);
      return reply;
    }
    if (heard === 0) this.settle(id)?.resolve({ reached: false });
    return reply;
  }

  /** Stops listening; questions still waiting for a reply fail. */
  async close(): Promise<void> {
    for (const id of [...this.waiting.keys()]) this.settle(id)?.reject(new Error('this replica is shutting down'));
    await this.stopListening?.();
    this.stopListening = undefined;
  }

  private settle(id: string): Waiting | undefined {
    const waiting = this.waiting.get(id);
    if (!waiting) return undefined;
    this.waiting.delete(id);
    clearTimeout(waiting.timer);
    return waiting;
  }

  private heard(text: string): void {
    const message = parse(text);
    if (!message) return;
    if (message.kind === 'reply') {
      const waiting = this.settle(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve({ reached: true, answer: message.answer });
      return;
    }
    void this.reply(message);
  }

  private async reply(question: Question): Promise<void> {
    const handler = this.handlers.get(question.topic);
    let reply: Reply;
    try {
      if (!handler) throw new Error(`replica ${this.self} does not answer '${question.topic}'`);
      reply = { kind: 'reply', id: question.id, answer: await handler(question.body) };
    } catch (error) {
      reply = { kind: 'reply', id: question.id, error: (error as Error).message };
    }
    // A reply that cannot be sent leaves the asker to its timeout, which says so.
    await this.channel.publish(channelOf(question.from), JSON.stringify(reply)).catch(() => undefined);
  }
}
