/**
 * Stream names are `<category>-<id>` (DESIGN 1): the category is everything before the first `-`
 * and holds no `-` itself, so category filters are exact prefix matches on `<category>-`.
 */
const CATEGORY = /^[A-Za-z][A-Za-z0-9_]*$/;
const MAX_STREAM_NAME_BYTES = 1024;

export function streamName(category: string, id: string): string {
  if (!CATEGORY.test(category)) throw new TypeError(`invalid stream category: ${JSON.stringify(category)}`);
  if (id.length === 0) throw new TypeError('stream id must not be empty');
  return `${category}-${id}`;
}

export function categoryOf(name: string): string {
  const dash = name.indexOf('-');
  return dash < 0 ? name : name.slice(0, dash);
}

export function isValidStreamName(name: string): boolean {
  if (name.length === 0 || name.startsWith('$')) return false;
  if (Buffer.byteLength(name, 'utf8') > MAX_STREAM_NAME_BYTES) return false;
  return ![...name].some(isControlCharacter);
}

function isControlCharacter(character: string): boolean {
  const code = character.codePointAt(0)!;
  return code < 0x20 || code === 0x7f;
}

export function isValidCategory(category: string): boolean {
  return CATEGORY.test(category);
}
