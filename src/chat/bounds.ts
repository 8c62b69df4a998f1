// A chat reply of bounded size whatever the service answered: the title, each field, section and note cut to a
// length a person reads, and the whole message to a budget (later fields and sections give way first), with a note
// that says what was left out. The terminal prints it as it is; Slack's own block limits come on top.
import type { ChatMessage, ChatSection } from './message.js';

interface MessageBounds {
  /** Characters of one code or text section. */
  sectionChars: number;
  /** Characters of the whole message: title, fields, sections and notes together. */
  messageChars: number;
}

/** A message a person can read in one go: a few screens in a terminal, a few blocks in Slack. */
export const MESSAGE_CHARS = 12_000;
const TITLE_CHARS = 300;
const LABEL_CHARS = 100;
const VALUE_CHARS = 400;
const NOTE_CHARS = 500;
const MAX_NOTES = 10;
const MAX_ACTIONS = 25;

/** Text cut to `max` characters, its end kept when `tail` (a log), with the count of what was cut. */
function cutText(text: string, max: number, tail = false): string {
  if (text.length <= max) return text;
  const left = text.length - max;
  if (tail) return `…[${left} earlier characters not shown]\n${text.slice(text.length - max)}`;
  return `${text.slice(0, max)}…[${left} more characters not shown]`;
}

const sectionSize = (section: ChatSection) => (section.title?.length ?? 0) + section.text.length;

/**
 * The message within the bounds. A section is cut to `sectionChars` (its end kept for a `tail` section, a log);
 * then, while the message is over `messageChars`, sections and then fields give way from the end.
 */
export function boundMessage(message: ChatMessage, bounds: MessageBounds): ChatMessage {
  const notes: string[] = [];
  const fields = message.fields.map(([label, value]): [string, string] => [
    cutText(label, LABEL_CHARS),
    cutText(value, VALUE_CHARS),
  ]);
  let sections = message.sections.map((section) => ({
    ...section,
    ...(section.title !== undefined ? { title: cutText(section.title, TITLE_CHARS) } : {}),
    text: cutText(section.text, bounds.sectionChars, section.tail),
  }));
  const cutSections = message.sections.filter((section, i) => section.text.length > sections[i].text.length).length;
  if (cutSections > 0)
    notes.push(
      `${cutSections === 1 ? 'A long section is' : `${cutSections} long sections are`} cut to ${bounds.sectionChars} characters.`,
    );

  const title = cutText(message.title, TITLE_CHARS);
  const fieldsSize = () => fields.reduce((sum, [label, value]) => sum + label.length + value.length, 0);
  const size = () => title.length + fieldsSize() + sections.reduce((sum, s) => sum + sectionSize(s), 0);
  let droppedSections = 0;
  while (sections.length > 0 && size() > bounds.messageChars) {
    sections = sections.slice(0, -1);
    droppedSections++;
  }
  let droppedFields = 0;
  while (fields.length > 1 && size() > bounds.messageChars) {
    fields.pop();
    droppedFields++;
  }
  if (droppedSections + droppedFields > 0) {
    const what = [
      droppedFields > 0 ? `${droppedFields} field${droppedFields === 1 ? '' : 's'}` : '',
      droppedSections > 0 ? `${droppedSections} section${droppedSections === 1 ? '' : 's'}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    notes.push(
      `${what} not shown: the reply is kept to ${bounds.messageChars} characters; ask for less (a page, fewer lines) to see more.`,
    );
  }
  // Ours first: what this bound left out is worth more than the tenth note of a presenter.
  const allNotes = [...notes, ...message.notes];
  const shownNotes = allNotes.slice(0, MAX_NOTES).map((note) => cutText(note, NOTE_CHARS));
  if (allNotes.length > MAX_NOTES)
    shownNotes[MAX_NOTES - 1] = `${allNotes.length - MAX_NOTES + 1} more notes not shown.`;
  return {
    ...message,
    title,
    fields,
    sections,
    actions: message.actions.slice(0, MAX_ACTIONS),
    notes: shownNotes,
  };
}
