/**
 * The runtime's hardening rule, checked: code that runs inside the isolate next to a program never
 * reaches a built-in the program can replace. primordials.ts captures every intrinsic the runtime
 * needs while the bundle loads, before any program exists; everything else calls those captures.
 * This rule finds, with TypeScript's checker, each place that reaches a built-in at call time:
 *
 *   - a method called through a built-in object: `list.push(x)`, `text.slice(1)`, `map.get(k)`,
 *     `promise.then(f)`, `fn.call(self)`, and a global's function read when the call runs
 *     (`Object.keys(o)`, `Math.floor(n)`): the program may have replaced the method, or the global;
 *   - iteration of a built-in iterable (for-of, spread, array destructuring, `yield*`) over an
 *     array, string, Map, Set or typed array: it calls `[Symbol.iterator]` and the iterator's
 *     `next`, both on prototypes the program can replace;
 *   - a built-in that iterates its argument (`new Map(list)`, `ArrayFrom(list)`, `new
 *     Uint8ArrayCtor(list)`, `ObjectFromEntries(list)`...) handed a built-in iterable: the same
 *     iterator, called by the engine on the runtime's behalf;
 *   - an async function that returns a promise (`return fetchIt()` rather than `return await
 *     fetchIt()`): its own promise adopts the returned one by calling its `then`, from a job.
 *
 * Syntax alone cannot tell `headers.get(name)` (the runtime's own Headers) from `map.get(key)`
 * (Map.prototype.get): the rule asks the checker which declaration each call resolves to, and a
 * declaration in TypeScript's default library is a built-in. Values the runtime does not type as
 * built-ins (`unknown` input a standard says to iterate, a class of its own) are not its business.
 *
 * A justified exception is written on the line above, or at the end of the line, as
 * `// primordials-exempt: <why>`; an exemption that excuses nothing is itself reported.
 */
import { dirname, resolve } from 'node:path';
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast';
import {
  API,
  type Checker,
  type Project,
  type Symbol as TsSymbol,
  type Type,
  TypeFlags,
} from 'typescript/unstable/sync';

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export interface Exemption {
  readonly file: string;
  readonly line: number;
  readonly reason: string;
}

export interface PrimordialsReport {
  /** What the rule refuses, by position; empty when the sources keep the rule. */
  readonly findings: readonly Finding[];
  /** Every `primordials-exempt` comment that excused a finding, with its reason. */
  readonly exemptions: readonly Exemption[];
}

export interface CheckOptions {
  /** The tsconfig whose files are checked. */
  readonly project: string;
  /** Files of the project the rule leaves alone (primordials.ts itself, generated files). */
  readonly skip: (fileName: string) => boolean;
  /**
   * The module the startup snapshot evaluates: the top level of it and of every module it imports
   * as a value runs while the snapshot is made, before any program exists, so it may use
   * built-ins directly. A module reached otherwise (a runtime piece, evaluated on a program's
   * first use) is checked whole.
   */
  readonly snapshotEntry?: string;
}

const EXEMPT = /\/\/\s*primordials-exempt:(.*)$/;

/** The built-ins that iterate an argument the runtime hands them, by `Interface.member`. */
const ITERATING_BUILTINS = new Set([
  'ArrayConstructor.from',
  'ArrayConstructor.fromAsync',
  'ObjectConstructor.fromEntries',
  'ObjectConstructor.groupBy',
  'MapConstructor.groupBy',
  'PromiseConstructor.all',
  'PromiseConstructor.allSettled',
  'PromiseConstructor.any',
  'PromiseConstructor.race',
  'MapConstructor',
  'WeakMapConstructor',
  'SetConstructor',
  'WeakSetConstructor',
  'Int8ArrayConstructor',
  'Uint8ArrayConstructor',
  'Uint8ClampedArrayConstructor',
  'Int16ArrayConstructor',
  'Uint16ArrayConstructor',
  'Int32ArrayConstructor',
  'Uint32ArrayConstructor',
  'Float32ArrayConstructor',
  'Float64ArrayConstructor',
  'BigInt64ArrayConstructor',
  'BigUint64ArrayConstructor',
]);

/** The prefix primordials.ts gives what it captures from each library interface. */
const PRIMORDIAL_PREFIX: Readonly<Record<string, string>> = {
  Array: 'ArrayPrototype',
  ReadonlyArray: 'ArrayPrototype',
  String: 'StringPrototype',
  Map: 'MapPrototype',
  ReadonlyMap: 'MapPrototype',
  WeakMap: 'WeakMapPrototype',
  Set: 'SetPrototype',
  ReadonlySet: 'SetPrototype',
  WeakSet: 'WeakSetPrototype',
  Promise: 'PromisePrototype',
  RegExp: 'RegExpPrototype',
  Object: 'ObjectPrototype',
  Number: 'NumberPrototype',
  Date: 'DatePrototype',
  ArrayBuffer: 'ArrayBufferPrototype',
  DataView: 'DataViewPrototype',
  CallableFunction: 'FunctionPrototype',
  NewableFunction: 'FunctionPrototype',
  Function: 'FunctionPrototype',
  ObjectConstructor: 'Object',
  ArrayConstructor: 'Array',
  StringConstructor: 'String',
  NumberConstructor: 'Number',
  PromiseConstructor: 'Promise',
  SymbolConstructor: 'Symbol',
  DateConstructor: 'Date',
  Math: 'Math',
  JSON: 'JSON',
};

const TYPED_ARRAY = /^(Big)?(Int|Uint|Float)(8|16|32|64)(Clamped)?Array$/;

/** What to write instead of calling `owner`'s `member` when the call runs. */
function advice(owner: string | undefined, member: string): string {
  if (/Function$/.test(owner ?? '') && (member === 'call' || member === 'apply'))
    return 'call ReflectApply(fn, self, args) from primordials.ts';
  if (/Function$/.test(owner ?? '') && member === 'bind') return 'bind once, while the bundle loads';
  const capital = `${member[0]?.toUpperCase()}${member.slice(1)}`;
  if (owner === 'Reflect') return `call Reflect${capital} from primordials.ts`;
  const prefix =
    owner === undefined
      ? undefined
      : (PRIMORDIAL_PREFIX[owner] ?? (TYPED_ARRAY.test(owner) ? 'TypedArrayPrototype' : undefined));
  if (prefix === undefined) return `capture it in primordials.ts and call the capture`;
  return `call ${prefix}${capital} from primordials.ts (add it there if it is missing)`;
}

/** Runs the rule over a project's files; the checker is TypeScript's own, through its native API. */
export function checkPrimordials(options: CheckOptions): PrimordialsReport {
  const api = new API({ cwd: process.cwd() });
  try {
    const snapshot = api.updateSnapshot({ openProjects: [options.project] });
    const project = snapshot.getProjects()[0];
    if (project === undefined) throw new Error(`TypeScript opened no project for ${options.project}`);
    const findings: Finding[] = [];
    const exemptions: Exemption[] = [];
    const snapshotModules = options.snapshotEntry
      ? valueImportClosure(project, options.snapshotEntry)
      : new Set<string>();
    for (const fileName of project.program.getSourceFileNames()) {
      if (fileName.includes('/node_modules/') || options.skip(fileName)) continue;
      const file = project.program.getSourceFile(fileName);
      if (file === undefined || file.isDeclarationFile) continue;
      const raw = checkFile(project, file, snapshotModules.has(fileName));
      const lines = file.text.split('\n');
      const used = new Set<number>();
      for (const finding of raw) {
        const exemptAt = exemptionLine(lines, finding.line);
        if (exemptAt === undefined) findings.push(finding);
        else used.add(exemptAt);
      }
      lines.forEach((text, index) => {
        const match = EXEMPT.exec(text);
        if (match === null) return;
        const line = index + 1;
        const reason = (match[1] ?? '').trim();
        if (!used.has(line))
          findings.push({
            file: fileName,
            line,
            column: 1,
            message: 'This primordials-exempt excuses nothing.',
          });
        else if (reason === '')
          findings.push({ file: fileName, line, column: 1, message: 'A primordials-exempt says why.' });
        else exemptions.push({ file: fileName, line, reason });
      });
    }
    return { findings, exemptions };
  } finally {
    api.close();
  }
}

/** The line (1-based) of the exemption excusing a finding on `line`: that line's end, or the line above. */
function exemptionLine(lines: readonly string[], line: number): number | undefined {
  if (EXEMPT.test(lines[line - 1] ?? '')) return line;
  const above = lines[line - 2] ?? '';
  if (EXEMPT.test(above) && above.trim().startsWith('//')) return line - 1;
  return undefined;
}

/** The modules `entry` evaluates: itself and, transitively, every module it imports as a value. */
function valueImportClosure(project: Project, entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    const file = project.program.getSourceFile(next);
    if (file === undefined) continue;
    for (const statement of file.statements) {
      const declaration = statement as unknown as {
        moduleSpecifier?: { text: string };
        importClause?: { isTypeOnly: boolean };
        isTypeOnly?: boolean;
      };
      const specifier = declaration.moduleSpecifier?.text;
      if (specifier === undefined || !specifier.startsWith('.')) continue;
      if (statement.kind === SyntaxKind.ImportDeclaration && declaration.importClause?.isTypeOnly) continue;
      if (statement.kind === SyntaxKind.ExportDeclaration && declaration.isTypeOnly) continue;
      pending.push(resolve(dirname(next), specifier));
    }
  }
  return seen;
}

/** Whether a node runs when a function runs: inside a function's body or an instance field's initializer. */
function runsLater(node: Node): boolean {
  for (let current = node.parent; current !== undefined; current = current.parent) {
    switch (current.kind) {
      case SyntaxKind.FunctionDeclaration:
      case SyntaxKind.FunctionExpression:
      case SyntaxKind.ArrowFunction:
      case SyntaxKind.MethodDeclaration:
      case SyntaxKind.Constructor:
      case SyntaxKind.GetAccessor:
      case SyntaxKind.SetAccessor:
        return true;
      case SyntaxKind.PropertyDeclaration:
        if (!isStatic(current)) return true;
        break;
      case SyntaxKind.SourceFile:
        return false;
    }
  }
  return false;
}

function isStatic(node: Node): boolean {
  const modifiers = (node as unknown as { modifiers?: readonly Node[] }).modifiers ?? [];
  return modifiers.some((modifier) => modifier.kind === SyntaxKind.StaticKeyword);
}

interface Candidates {
  /** The property name (or element access) of each call made through a member. */
  readonly calls: Node[];
  /** Each expression iterated by the language: for-of, spread, destructuring, yield*. */
  readonly iterated: Node[];
  /** Calls and `new` whose callee may be a built-in that iterates an argument. */
  readonly iteratingCalls: { callee: Node; call: Node; argument: Node }[];
  /** What each async function returns (a return statement's expression, or an arrow's body). */
  readonly asyncReturns: Node[];
}

const FUNCTIONS = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

function isAsync(node: Node): boolean {
  const modifiers = (node as unknown as { modifiers?: readonly Node[] }).modifiers ?? [];
  return modifiers.some((modifier) => modifier.kind === SyntaxKind.AsyncKeyword);
}

/** The function a node's code belongs to, if any. */
function enclosingFunction(node: Node): Node | undefined {
  for (let current = node.parent; current !== undefined; current = current.parent) {
    if (FUNCTIONS.has(current.kind)) return current;
    if (current.kind === SyntaxKind.SourceFile) return undefined;
  }
  return undefined;
}

function collect(file: SourceFile, loadTimeExempt: boolean): Candidates {
  const candidates: Candidates = { calls: [], iterated: [], iteratingCalls: [], asyncReturns: [] };
  const visit = (node: Node): void => {
    // An async arrow's body runs when it is called, wherever the arrow is written.
    if (node.kind === SyntaxKind.ArrowFunction && isAsync(node)) {
      const body = (node as unknown as { body: Node }).body;
      if (body.kind !== SyntaxKind.Block) candidates.asyncReturns.push(body);
    }
    if (loadTimeExempt && !runsLater(node)) {
      node.forEachChild(visit);
      return;
    }
    switch (node.kind) {
      case SyntaxKind.CallExpression:
      case SyntaxKind.NewExpression: {
        const { expression, arguments: args } = node as unknown as { expression: Node; arguments?: Node[] };
        if (node.kind === SyntaxKind.CallExpression) {
          if (expression.kind === SyntaxKind.PropertyAccessExpression)
            candidates.calls.push((expression as unknown as { name: Node }).name);
          else if (expression.kind === SyntaxKind.ElementAccessExpression) candidates.calls.push(expression);
        }
        const first = args?.[0];
        if (first !== undefined && first.kind !== SyntaxKind.SpreadElement)
          candidates.iteratingCalls.push({ callee: expression, call: node, argument: first });
        break;
      }
      case SyntaxKind.ForOfStatement:
        candidates.iterated.push((node as unknown as { expression: Node }).expression);
        break;
      case SyntaxKind.ReturnStatement: {
        const returned = (node as unknown as { expression?: Node }).expression;
        const owner = enclosingFunction(node);
        if (returned !== undefined && owner !== undefined && isAsync(owner))
          candidates.asyncReturns.push(returned);
        break;
      }
      case SyntaxKind.SpreadElement:
        candidates.iterated.push((node as unknown as { expression: Node }).expression);
        break;
      case SyntaxKind.YieldExpression: {
        const yielded = node as unknown as { asteriskToken?: Node; expression?: Node };
        if (yielded.asteriskToken && yielded.expression) candidates.iterated.push(yielded.expression);
        break;
      }
      case SyntaxKind.VariableDeclaration:
      case SyntaxKind.Parameter: {
        const declared = node as unknown as { name: Node; initializer?: Node };
        if (declared.name.kind === SyntaxKind.ArrayBindingPattern)
          candidates.iterated.push(declared.initializer ?? declared.name);
        break;
      }
      case SyntaxKind.BinaryExpression: {
        const assigned = node as unknown as { left: Node; operatorToken: Node; right: Node };
        if (
          assigned.operatorToken.kind === SyntaxKind.EqualsToken &&
          assigned.left.kind === SyntaxKind.ArrayLiteralExpression
        )
          candidates.iterated.push(assigned.right);
        break;
      }
    }
    node.forEachChild(visit);
  };
  visit(file);
  return candidates;
}

function isLibrary(symbol: TsSymbol | undefined): boolean {
  return symbol?.declarations.some((declaration) => isLibraryPath(declaration.path)) ?? false;
}

function isLibraryPath(path: string): boolean {
  return /(^|\/)lib\.[\w.]+\.d\.ts$/.test(path);
}

/** The library interface a built-in iterable type comes from (`Array`, `String`, `Map`...), if any. */
function builtinIterable(checker: Checker, type: Type | undefined, depth = 0): string | undefined {
  if (type === undefined || depth > 4) return undefined;
  if (type.flags & TypeFlags.StringLike) return 'String';
  if (type.flags & (TypeFlags.Union | TypeFlags.Intersection)) {
    for (const member of (type as Type & { getTypes(): readonly Type[] }).getTypes() ?? []) {
      const found = builtinIterable(checker, member, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (type.flags & TypeFlags.TypeParameter)
    return builtinIterable(checker, checker.getBaseConstraintOfType(type), depth + 1);
  if (!(type.flags & TypeFlags.Object)) return undefined;
  if (checker.isTupleType(type)) return 'Array';
  const symbol = (type as Type & { getSymbol(): TsSymbol | undefined }).getSymbol();
  if (symbol === undefined || !isLibrary(symbol)) return undefined;
  // Only types whose iteration the engine runs through a replaceable prototype.
  if (/^(Readonly)?(Array|Map|Set)$|Iterator$|^IterableIterator$|^String$|^Arguments$/.test(symbol.name))
    return symbol.name;
  if (TYPED_ARRAY.test(symbol.name)) return symbol.name;
  return undefined;
}

/** Whether a type is, or may be, a built-in Promise (or PromiseLike). */
function isBuiltinPromise(type: Type | undefined, depth = 0): boolean {
  if (type === undefined || depth > 4) return false;
  if (type.flags & TypeFlags.Union) {
    const members = (type as Type & { getTypes(): readonly Type[] }).getTypes() ?? [];
    return members.some((member) => isBuiltinPromise(member, depth + 1));
  }
  if (!(type.flags & TypeFlags.Object)) return false;
  const symbol = (type as Type & { getSymbol(): TsSymbol | undefined }).getSymbol();
  return (
    symbol !== undefined && isLibrary(symbol) && (symbol.name === 'Promise' || symbol.name === 'PromiseLike')
  );
}

function position(file: SourceFile, node: Node): { line: number; column: number } {
  const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
  return { line: line + 1, column: character + 1 };
}

function checkFile(project: Project, file: SourceFile, evaluatedBySnapshot: boolean): Finding[] {
  const { checker } = project;
  const candidates = collect(file, evaluatedBySnapshot);
  const findings: Finding[] = [];
  const report = (node: Node, message: string) =>
    findings.push({ file: file.fileName, ...position(file, node), message });

  const called = candidates.calls.length > 0 ? checker.getSymbolAtLocation(candidates.calls) : [];
  called.forEach((symbol, index) => {
    if (symbol === undefined || !isLibrary(symbol)) return;
    const owner = symbol.getParent()?.name;
    const node = candidates.calls[index] as Node;
    const what = owner === undefined ? `the built-in ${symbol.name}` : `${owner}'s ${symbol.name}`;
    report(
      node,
      `\`${symbol.name}\` calls ${what}, which a program can replace: ${advice(owner, symbol.name)}.`,
    );
  });

  const iteratedTypes = candidates.iterated.length > 0 ? checker.getTypeAtLocation(candidates.iterated) : [];
  iteratedTypes.forEach((type, index) => {
    const iterable = builtinIterable(checker, type);
    if (iterable === undefined) return;
    report(
      candidates.iterated[index] as Node,
      `Iterating a built-in ${iterable} calls its [Symbol.iterator] and the iterator's next, which a program can replace: index it with a for loop (or use a primordials.ts helper).`,
    );
  });

  const returnedTypes =
    candidates.asyncReturns.length > 0 ? checker.getTypeAtLocation(candidates.asyncReturns) : [];
  returnedTypes.forEach((type, index) => {
    if (!isBuiltinPromise(type)) return;
    report(
      candidates.asyncReturns[index] as Node,
      'An async function that returns a promise adopts it through its then, which a program can replace: return await it.',
    );
  });

  const { iteratingCalls } = candidates;
  if (iteratingCalls.length > 0) {
    const callees = checker.getTypeAtLocation(iteratingCalls.map(({ callee }) => callee));
    const calleeSymbols = checker.getSymbolAtLocation(iteratingCalls.map(({ callee }) => nameOf(callee)));
    const argumentTypes = checker.getTypeAtLocation(iteratingCalls.map(({ argument }) => argument));
    iteratingCalls.forEach(({ call }, index) => {
      const builtin = iteratingBuiltin(
        callees[index],
        calleeSymbols[index],
        call.kind === SyntaxKind.NewExpression,
      );
      if (builtin === undefined) return;
      const iterable = builtinIterable(checker, argumentTypes[index]);
      if (iterable === undefined) return;
      // A typed array made from a typed array copies its elements without iterating it.
      if (TYPED_ARRAY.test(builtin.replace(/^new /, '')) && TYPED_ARRAY.test(iterable)) return;
      report(
        call,
        `${builtin} iterates its argument, a built-in ${iterable}, through the iterator a program can replace: copy it with a for loop instead.`,
      );
    });
  }
  return findings;
}

function nameOf(callee: Node): Node {
  return callee.kind === SyntaxKind.PropertyAccessExpression
    ? (callee as unknown as { name: Node }).name
    : callee;
}

/** `Interface.member` (or the constructor interface) when a callee is a built-in that iterates an argument. */
function iteratingBuiltin(
  calleeType: Type | undefined,
  calleeSymbol: TsSymbol | undefined,
  constructs: boolean,
): string | undefined {
  if (constructs) {
    const symbol = (calleeType as (Type & { getSymbol(): TsSymbol | undefined }) | undefined)?.getSymbol();
    if (symbol !== undefined && isLibrary(symbol) && ITERATING_BUILTINS.has(symbol.name))
      return `new ${symbol.name.replace(/Constructor$/, '')}`;
    return undefined;
  }
  // A capture (`const ArrayFrom = Array.from`) has the library function's type: its declaration.
  const symbol = calleeSymbol;
  if (symbol === undefined) return undefined;
  const target = isLibrary(symbol) ? symbol : undefined;
  if (target !== undefined) {
    const key = `${target.getParent()?.name}.${target.name}`;
    return ITERATING_BUILTINS.has(key) ? key : undefined;
  }
  const type = calleeType as (Type & { getSymbol(): TsSymbol | undefined }) | undefined;
  const typeSymbol = type?.getSymbol();
  if (typeSymbol === undefined || !isLibrary(typeSymbol)) return undefined;
  const key = `${typeSymbol.getParent()?.name}.${typeSymbol.name}`;
  return ITERATING_BUILTINS.has(key) ? key : undefined;
}
