import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, PARAMS_ERROR_CODES } from '../src/wire';

/**
 * `ERROR_CODES` is exactly the codes the project throws, answers or reads: every code in a code
 * position anywhere in the sources (core, the emulator, every adapter, store, CLI and hook) is a
 * row, and every row is used somewhere. Read with the TypeScript checker, not a regex: a code
 * position is found by what the code means (a `code`/`error` property, an argument whose
 * parameter is named `code`, a `code` parameter's default, a comparison with a `.code`, a set or
 * map consulted with a `.code`, an `ERROR_CODES.X` read), and the value there is read by its
 * type as well as its text, so a code held in a constant, a ternary, a `??` or an `as const`
 * object is found as surely as a literal.
 */

const ROOT = new URL('../../../', import.meta.url).pathname;
/** Every package's sources and the sample apps' (tests, and the conformance suites, which are tests, are not the project's behaviour). */
export function projectSources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name === '.next' || name === 'test' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name) && !/\.(test|d)\.tsx?$/.test(name)) out.push(path);
    }
  };
  for (const top of ['packages', 'apps']) {
    for (const pkg of readdirSync(join(ROOT, top))) {
      if (pkg === 'conformance') continue;
      const src = join(ROOT, top, pkg, 'src');
      if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) walk(src);
    }
  }
  return out;
}

/** The table's rows, to tell a type that names codes from one that admits any code. */
const ROWS = new Set(Object.keys(ERROR_CODES));

/** The shape of a code: capitals, digits and underscores (`INVALID_BODY`, `TIMEOUT`). */
const CODE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/**
 * Code-shaped values in code positions that are not error codes, each for a reason: the
 * validation issue codes have their own table (`PARAMS_ERROR_CODES`, the issues of a
 * `ParamsValidationError`), and these are the rest.
 */
const NOT_ERROR_CODES = new Map<string, string>([
  ['NOT_YOURS', "an earlier form of the contract's 404, read and mapped to NOT_FOUND (spec: Errors)"],
  ['REFUSED', "a ledger record's refusal code when the refusal carried none (a generation's error code, not an HTTP one)"],
  ...[
    'INVALID_TYPE',
    'INVALID_VALUE',
    'OUT_OF_RANGE',
    'TOO_LONG',
    'REQUIRED',
    'NOT_SUPPORTED',
    'UNKNOWN_PARAM',
    'DUPLICATE',
    'INVALID_SYNTAX',
  ].map(
    (code) =>
      [code, "a params issue's code (`ParamsValidationError.issues[].code`, validateParams and the CLI's --param), not an error's"] as [
        string,
        string,
      ],
  ),
  ['EADDRINUSE', "Node's listen error code"],
  ['EACCES', "Node's listen error code"],
  ['EADDRNOTAVAIL', "Node's listen error code"],
  ['ENOTDIR', "Node's file error code"],
  ['ENOENT', "Node's file error code"],
  ['ECONNRESET', "Node's socket error code"],
  ['EPIPE', "Node's socket error code"],
  ['ERR_HTTP_REQUEST_TIMEOUT', "Node's HTTP parser error code"],
  ['HPE_HEADER_OVERFLOW', "Node's HTTP parser error code"],
  ['HPE_CHUNK_EXTENSIONS_OVERFLOW', "Node's HTTP parser error code"],
  ['UND_ERR_SOCKET', "undici's socket error code"],
  ['ENOTFOUND', "Node's DNS lookup error code (the emulator's input fetch answers a lookup with it)"],
  ['EINPUTREFUSED', "the emulator's input fetch: a lookup refused by its address policy, as a Node errno-style code on the socket error"],
  ['EEXIST', "Node's file system error code (the CLI batch's lock file, made with the wx flag)"],
  ['EPERM', "Node's errno code (process.kill(pid, 0) on another user's live process: the CLI batch's lock holder is alive)"],
  ...['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_BODY_TOO_LARGE', 'FST_ERR_CTP_INVALID_MEDIA_TYPE'].map(
    (code) => [code, "Fastify's content-type parser error code (core/node reads it as a parser refusal)"] as [string, string],
  ),
]);

interface Found {
  code: string;
  where: string;
  kind: 'thrown' | 'read';
}

function scan(files: string[]): Found[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.ReactJSX,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const found: Found[] = [];
  const fileSet = new Set(files);

  /** Every code-shaped string the expression can be: its literal type(s) and the literals in it. */
  const valuesOf = (expr: ts.Node): string[] => {
    const values = new Set<string>();
    const type = checker.getTypeAtLocation(expr);
    const literals = (type.isUnion() ? type.types : [type]).filter((t) => t.isStringLiteral()).map((t) => t.value);
    // A type that admits (nearly) every row, such as `ErrorCode` or `keyof typeof ERROR_CODES`,
    // says the value is some code, not which one: it marks no row as used (else every row would be).
    if (literals.filter((v) => ROWS.has(v)).length <= ROWS.size / 2) for (const v of literals) values.add(v);
    const visit = (n: ts.Node) => {
      if (ts.isStringLiteralLike(n)) values.add(n.text);
      // Not into calls or functions: `f('X')`'s result is not 'X'.
      if (ts.isCallExpression(n) || ts.isFunctionLike(n)) return;
      // `TABLE[status]`: the values of the object literal the constant holds (a status-to-code map).
      if (ts.isElementAccessExpression(n)) {
        const init = initializerOf(n.expression);
        if (init && ts.isObjectLiteralExpression(init)) {
          for (const p of init.properties) if (ts.isPropertyAssignment(p)) visit(p.initializer);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(expr);
    return [...values].filter((v) => CODE.test(v));
  };
  const add = (expr: ts.Node, kind: Found['kind']) => {
    const sf = expr.getSourceFile();
    const { line } = sf.getLineAndCharacterOfPosition(expr.getStart());
    for (const code of valuesOf(expr)) found.push({ code, where: `${sf.fileName.slice(ROOT.length)}:${line + 1}`, kind });
  };
  /** `x.code` or `code` (a name that holds a code). */
  const isCodeRef = (e: ts.Expression): boolean =>
    (ts.isPropertyAccessExpression(e) && /code$/i.test(e.name.text)) || (ts.isIdentifier(e) && /code$/i.test(e.text));
  /** The initializer of the constant an identifier names (a set or map of codes). */
  const initializerOf = (e: ts.Expression): ts.Node | undefined => {
    let symbol = ts.isIdentifier(e) ? checker.getSymbolAtLocation(e) : undefined;
    // An imported constant: its declaration in the module that exports it.
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const decl = symbol?.valueDeclaration;
    return decl && ts.isVariableDeclaration(decl) ? decl.initializer : undefined;
  };

  const visit = (node: ts.Node) => {
    // { code: X } and { error: X } (a thrown error's init, an error body).
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && (node.name.text === 'code' || node.name.text === 'error')) {
      add(node.initializer, 'thrown');
    }
    if (ts.isShorthandPropertyAssignment(node) && node.name.text === 'code') {
      const decl = checker.getShorthandAssignmentValueSymbol(node)?.valueDeclaration;
      if (decl && (ts.isVariableDeclaration(decl) || ts.isParameter(decl)) && decl.initializer) add(decl.initializer, 'thrown');
    }
    // const code = X (a local that holds the code it then answers or throws).
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && /code$/i.test(node.name.text) && node.initializer) {
      add(node.initializer, 'thrown');
    }
    // x.code = X.
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && isCodeRef(node.left)) {
      add(node.right, 'thrown');
    }
    // WAITS[x.code], MESSAGES[code]: the keys of the object literal the constant holds are read.
    if (ts.isElementAccessExpression(node) && isCodeRef(node.argumentExpression)) {
      const init = initializerOf(node.expression);
      if (init && ts.isObjectLiteralExpression(init)) {
        for (const p of init.properties) {
          if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && CODE.test(p.name.text)) {
            found.push({ code: p.name.text, where: p.getSourceFile().fileName.slice(ROOT.length), kind: 'read' });
          }
        }
      }
    }
    // A `code` parameter's default.
    if (ts.isParameter(node) && ts.isIdentifier(node.name) && node.name.text === 'code' && node.initializer)
      add(node.initializer, 'thrown');
    // An argument whose parameter is named `code` (new EmulatorHttpError(code, …), new WebhookVerificationError(m, code), errorCodeInfo(code), …).
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments) {
      const signature = checker.getResolvedSignature(node);
      const params = signature?.getParameters() ?? [];
      node.arguments.forEach((arg, i) => {
        const name = params[Math.min(i, params.length - 1)]?.name;
        if (name === 'code') add(arg, 'thrown');
      });
      // set.has(x.code), map.get(x.code): the collection's codes are read.
      const callee = node.expression;
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(callee) &&
        (callee.name.text === 'has' || callee.name.text === 'get') &&
        node.arguments[0] &&
        isCodeRef(node.arguments[0])
      ) {
        const init = initializerOf(callee.expression);
        if (init) add(init, 'read');
      }
    }
    // x.code === 'X', code !== 'X'.
    if (
      ts.isBinaryExpression(node) &&
      [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind)
    ) {
      if (isCodeRef(node.left)) add(node.right, 'read');
      if (isCodeRef(node.right)) add(node.left, 'read');
    }
    // switch (x.code) { case 'X': }
    if (ts.isSwitchStatement(node) && isCodeRef(node.expression)) {
      for (const clause of node.caseBlock.clauses) if (ts.isCaseClause(clause)) add(clause.expression, 'read');
    }
    // ERROR_CODES.X, ERROR_CODES['X'].
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ERROR_CODES') {
      found.push({ code: node.name.text, where: node.getSourceFile().fileName.slice(ROOT.length), kind: 'read' });
    }
    if (ts.isElementAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ERROR_CODES') {
      add(node.argumentExpression, 'read');
    }
    ts.forEachChild(node, visit);
  };
  for (const sf of program.getSourceFiles()) if (fileSet.has(sf.fileName)) visit(sf);
  return found;
}

const files = projectSources();
const found = scan(files);
const TABLE = new Set(Object.keys(ERROR_CODES));
const ISSUES = new Set<string>(PARAMS_ERROR_CODES);
const isErrorCode = (code: string) => !ISSUES.has(code) && !NOT_ERROR_CODES.has(code);

describe('ERROR_CODES is exactly what the project throws, answers or reads', () => {
  it('scans the whole project (core, the emulator, every adapter and store)', () => {
    for (const pkg of ['core', 'emulator', 'express', 'fastify', 'hono', 'nestjs', 'next', 'redis', 'cli']) {
      expect(files.some((f) => f.includes(`/packages/${pkg}/src/`))).toBe(true);
    }
    expect(found.filter((f) => f.kind === 'thrown').length).toBeGreaterThan(100);
  });

  it('every code thrown or read anywhere is a row of the table', () => {
    const missing = found.filter((f) => isErrorCode(f.code) && !TABLE.has(f.code)).map((f) => `${f.code} (${f.where})`);
    expect(missing).toEqual([]);
  });

  it('every row of the table is thrown or read somewhere', () => {
    const used = new Set(found.map((f) => f.code));
    expect([...TABLE].filter((code) => !used.has(code))).toEqual([]);
  });

  it('the exceptions are real: each is found, none is a row', () => {
    const used = new Set(found.map((f) => f.code));
    for (const code of NOT_ERROR_CODES.keys()) {
      expect(TABLE.has(code), code).toBe(false);
    }
    expect([...NOT_ERROR_CODES.keys()].filter((code) => !used.has(code))).toEqual([]);
  });
});
