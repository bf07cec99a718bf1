/**
 * INTERNAL_NAMES (packages/protocol/src/generated/internal-names.generated.ts): every name starting with
 * `__` that the code the sandbox puts into an isolate writes, found by lexing that code. The
 * provider rules reserve exactly these, so a provider cannot take a name the sandbox binds (an
 * import of the entry, a global it publishes, a declaration of its own scripts) while any other
 * `__` name, such as the `__openapiHost` that @cloudflare/codemode's openApiMcpServer sends, stays
 * free. A name added to any of that code lands in the list the next time the generator runs, and
 * the generated-files check fails until it has.
 *
 * Lexed, not matched with a regular expression: a name inside a comment is no binding, and one
 * inside a string is (the global a `defineProperty(globalThis, "__x", ...)` publishes) only when
 * the string is the whole name, which the lexer's tokens tell apart.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Token as AcornToken, tokenizer } from 'acorn';

const executor = join(dirname(fileURLToPath(import.meta.url)), '..');

const INTERNAL = /^__[\p{ID_Continue}$]*$/u;

/** An acorn token: acorn's typings leave out `value`, which every token has. */
type Token = AcornToken & { readonly value: unknown };

/** The `__` names one text writes as an identifier, or as a string that is the whole name. */
function namesIn(text: string, found: Set<string>): void {
  const read = (sourceType: 'script' | 'module') => {
    const names: string[] = [];
    for (const token of tokenizer(text, {
      ecmaVersion: 'latest',
      sourceType,
      allowReturnOutsideFunction: true,
    }) as Iterable<Token>)
      if ((token.type.label === 'name' || token.type.label === 'string') && typeof token.value === 'string')
        if (INTERNAL.test(token.value)) names.push(token.value);
    return names;
  };
  let names: string[];
  try {
    names = read('script');
  } catch {
    // The internal module is a module: `import`/`export` do not lex as a script's.
    names = read('module');
  }
  for (const name of names) found.add(name);
}

/** A module of the executor's sandbox, loaded from its source. */
async function sandboxModule<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(join(executor, 'src/sandbox', file)).href)) as T;
}

/**
 * The sources the sandbox builds while it runs a program, each from a sample that makes every line
 * its template can write: the entry around the program (entry/entry.ts, proxy-source.ts: one provider
 * of each convention and a prelude), the linker's scope and loader modules
 * (modules/linker-sources.ts), the rewrite of import() for engines without the callback
 * (modules/dynamic-import.ts) and the CommonJS
 * factories and facade (cjs.ts).
 */
async function builtSources(): Promise<string[]> {
  const { buildEntrySource } =
    await sandboxModule<typeof import('../src/sandbox/entry/entry.ts')>('entry/entry.ts');
  const { SCOPE_SOURCE, loaderRootSource } =
    await sandboxModule<typeof import('../src/sandbox/modules/linker-sources.ts')>(
      'modules/linker-sources.ts',
    );
  const { rewriteDynamicImports } =
    await sandboxModule<typeof import('../src/sandbox/modules/dynamic-import.ts')>(
      'modules/dynamic-import.ts',
    );
  const { CJS_FACTORIES, cjsFactoryName, cjsInternal, wrapCjs } =
    await sandboxModule<typeof import('../src/sandbox/cjs.ts')>('cjs.ts');
  const modules = new Map([['lib.cjs', { cjs: 'module.exports = 1;' }]]);
  return [
    buildEntrySource({
      imports: ["import value from 'value.js'"],
      body: 'async () => value',
      providers: [
        { name: 'spread', prelude: 'spread.b = 1;' },
        { name: 'single', positionalArgs: false },
      ],
      timeout: 1000,
      retainHandles: true,
    }),
    SCOPE_SOURCE,
    loaderRootSource(1, 'value.js'),
    rewriteDynamicImports("export const later = () => import('value.js');", 'later.js'),
    cjsInternal(CJS_FACTORIES, modules)?.source ?? '',
    cjsInternal(cjsFactoryName('lib.cjs'), modules)?.source ?? '',
    wrapCjs('lib.cjs'),
  ];
}

/** The generated file: the names every text and the sample entry write, sorted. */
export async function internalNamesFile(texts: readonly string[], header: string): Promise<string> {
  const found = new Set<string>();
  for (const text of [...texts, ...(await builtSources())]) namesIn(text, found);
  const names = [...found].sort();
  return `${header}/**
 * Every name starting with \`__\` that the code the sandbox puts into an isolate writes: the
 * runtime bundle and its pieces, the dispatch codec, the sandbox's own isolate-side sources and
 * the sources it builds while it runs a program (the entry, the linker's modules, the import()
 * rewrite, the CommonJS wrappers). Lexed from that code by packages/executor/scripts/internal-names.ts;
 * the provider rules (../reserved.ts) reserve exactly these.
 */
export const INTERNAL_NAMES: readonly string[] = ${JSON.stringify(names, null, 2).replaceAll('"', "'")};
`;
}
