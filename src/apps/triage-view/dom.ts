// Building the view's elements: every value is a text node (createTextNode), never markup, so a commit title or a log
// line from the service shows as the characters it is, whatever they are; characters that would hide or reorder text
// (a right-to-left override turning "success" into "sseccus", ESC, zero-width) are spelled out as the prompts do.
import { spellOutHidden } from '../../text/visible.js';

export type Child = Node | string | number | false | null | undefined;

/** An element with a class (optional) and children; strings become text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  append(element, ...children);
  return element;
}

/** Text as shown: every hidden character spelled out (\u202e), newline and tab kept where they lay out a log. */
function visible(text: string): string {
  return spellOutHidden(text, '\n\t');
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue;
    parent.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(visible(String(child))) : child,
    );
  }
}

/** Replaces what an element shows. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

export function button(label: string, onClick: () => void, className = ''): HTMLButtonElement {
  const b = h('button', className, label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}
