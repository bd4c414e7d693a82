// The fields each API route takes are declared once, on the route, and refused otherwise; the
// table of docs/emulator.md must say the same, or a client written from the docs gets 400s.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiRoutes } from '../../src/emulator/routes';

/** The docs' fields table: path under /api/ → its fields, in order. */
function documentedFields(): Map<string, string[]> {
  const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'emulator.md'), 'utf8');
  const start = docs.indexOf('| Endpoints (under `/api/`) | Fields |');
  expect(start).toBeGreaterThan(-1);
  const rows = docs.slice(start).split('\n\n')[0]!.split('\n').slice(2);
  const table = new Map<string, string[]>();
  for (const row of rows) {
    const [paths, fields] = row
      .split('|')
      .slice(1, 3)
      .map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    for (const path of paths!) table.set(`/api/${path}`, fields!);
  }
  return table;
}

test('every route takes the fields the docs list for it, in that order, and no route is missing', () => {
  const documented = documentedFields();
  const declared = new Map(apiRoutes.map((route) => [route.path, [...route.fields]]));
  expect(declared).toEqual(documented);
});
