/**
 * The only way the operator view puts data on the page (ADR 0042, as the person console, ADR 0040): elements are
 * created and every piece of text is set as `textContent`, never parsed as HTML, so a client's goal or a child
 * actor's `sub` containing `<script>` is shown as the characters it is. There is no `innerHTML` in the view.
 * (A copy of apps/person-server/console/src/dom.ts: the two bundles belong to two apps, and apps import no app.)
 */
export type Child = Node | string | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  append(element, children);
  return element;
}

const SVG = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attributes: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  append(element, children);
  return element;
}

function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === undefined || child === false) continue;
    parent.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** A status line for the person (screen readers hear it: the element is `aria-live`). */
export function notice(text: string, kind: 'info' | 'error' = 'info'): void {
  const box = byId('notice');
  box.textContent = text;
  box.className = kind === 'error' ? 'error' : '';
}

/** An instant as the person's local date and time, with the exact UTC value as a tooltip. */
export function when(value: unknown): HTMLElement | string {
  if (typeof value !== 'string') return '—';
  const date = new Date(value);
  return el('time', { datetime: value, title: value }, Number.isNaN(date.getTime()) ? value : date.toLocaleString());
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
