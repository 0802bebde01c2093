/**
 * SDK-16b: the root `engines` must not promise a Node version a workspace package (or the SDK's
 * dependencies, e.g. @noble/hashes ≥ 20.19) refuses. Compares each declared range's lowest 20.x floor.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (path: string): { engines?: { node?: string }; workspaces?: string[] } => JSON.parse(readFileSync(resolve(root, path), 'utf8'));

/** The lowest version a range admits, as [major, minor] (ranges here are `>=X.Y[.Z] …`). */
function floor(range: string): [number, number] {
  const match = /^>=\s*(\d+)\.(\d+)/.exec(range.trim());
  if (!match) throw new Error(`unexpected engines range ${range}`);
  return [Number(match[1]), Number(match[2])];
}

const notBelow = (a: [number, number], b: [number, number]): boolean => a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1]);

describe('engines (SDK-16b)', () => {
  it('the root engines floor is at least every workspace package’s floor (the SDK needs Node ≥ 20.19)', () => {
    const rootFloor = floor(read('package.json').engines!.node!);
    for (const path of ['libs/mission-client/package.json', 'apps/cli/package.json']) {
      const range = read(path).engines?.node;
      if (range !== undefined) expect([path, notBelow(rootFloor, floor(range))]).toEqual([path, true]);
    }
    expect(notBelow(rootFloor, [20, 19])).toBe(true);
  });
});
