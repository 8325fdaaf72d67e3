import { describe, expect, it } from 'vitest';
import { classify, parseReport, requiredLevel, unpublishedNames } from '../../scripts/api-changesets.mjs';

/** An API Extractor report holding `code`. */
const report = (code: string) => `## API Report File for "x"\n\n\`\`\`ts\n\n${code}\n\n\`\`\`\n`;

const before = report(`import { Request } from 'express';

// @public
export function createRouteHandler(options: RouteHandlerOptions): unknown;

// @public
export interface RouteHandlerOptions {
    // (undocumented)
    maxBodyBytes?: number;
}

// @public (undocumented)
export function sendError(res: unknown, error: unknown): void;

export { WebhookEvent }`);

describe('scripts/api-changesets.mjs: what a report diff asks of the changesets', () => {
  it('reads each exported name with its declaration lines, comments and imports left out', () => {
    const names = parseReport(before);
    expect([...names.keys()]).toEqual(['createRouteHandler', 'RouteHandlerOptions', 'sendError', 'WebhookEvent']);
    expect(names.get('RouteHandlerOptions')).toEqual(['export interface RouteHandlerOptions {', 'maxBodyBytes?: number;', '}']);
  });

  it('a removed name is breaking (the planted failure: a name gone with no changeset)', () => {
    const after = report(`export function createRouteHandler(options: RouteHandlerOptions): unknown;

export interface RouteHandlerOptions {
    maxBodyBytes?: number;
}

export { WebhookEvent }`);
    expect(classify(parseReport(before), parseReport(after))).toMatchObject({ removed: ['sendError'], kind: 'breaking' });
  });

  it('a changed line is breaking (widening and narrowing look alike); lines only added are an addition', () => {
    const changed = before.replace('maxBodyBytes?: number;', 'maxBodyBytes?: number | string;');
    expect(classify(parseReport(before), parseReport(changed))).toMatchObject({ changed: ['RouteHandlerOptions'], kind: 'breaking' });
    const grown = before.replace('    maxBodyBytes?: number;\n', '    maxBodyBytes?: number;\n    bodyTimeoutMs?: number;\n');
    expect(classify(parseReport(before), parseReport(grown))).toMatchObject({ added: ['RouteHandlerOptions'], kind: 'addition' });
    const docsOnly = before.replace('// (undocumented)\n    maxBodyBytes', '// Largest body.\n    maxBodyBytes');
    expect(classify(parseReport(before), parseReport(docsOnly)).kind).toBe('none');
  });

  it('asks minor for breaking and patch for additions before 1.0, major and minor from 1.0', () => {
    expect([requiredLevel('breaking', '0.1.0'), requiredLevel('addition', '0.1.0'), requiredLevel('none', '0.1.0')]).toEqual([
      'minor',
      'patch',
      'none',
    ]);
    expect([requiredLevel('breaking', '1.2.0'), requiredLevel('addition', '1.2.0')]).toEqual(['major', 'minor']);
  });
});

describe('scripts/api-changesets.mjs: what the pending changesets may name', () => {
  it('refuses a changeset naming a private package (once @mediagen/conformance, in three changesets) and passes published ones', () => {
    const pending = new Map([
      ['@mediagen/core', { level: 'minor', files: ['cancel-route.md (minor)', 'ledger-cancel.md (minor)'] }],
      ['@mediagen/conformance', { level: 'minor', files: ['cancel-route.md (minor)', 'ledger-cancel.md (minor)'] }],
    ]);
    expect(unpublishedNames(pending, new Set(['@mediagen/core']))).toEqual([
      'cancel-route.md names @mediagen/conformance, which is not a published package',
      'ledger-cancel.md names @mediagen/conformance, which is not a published package',
    ]);
    expect(unpublishedNames(pending, new Set(['@mediagen/core', '@mediagen/conformance']))).toEqual([]);
  });
});
