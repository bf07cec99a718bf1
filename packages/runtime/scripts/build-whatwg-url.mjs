/**
 * Makes packages/runtime/src/url/generated/whatwg-url.generated.ts (generate(), which ./generate.ts
 * writes and checks): whatwg-url's URL parser and application/x-www-form-urlencoded parser and
 * serializer (not its URL and URLSearchParams classes, which url.ts and url-search-params.ts
 * replace), bundled by esbuild into one ES module. tr46 with punycode is bundled apart, by
 * tr46Piece, which ./build.ts calls to make the runtime piece ../src/pieces.ts loads. The runtime
 * bundle (./build.ts) then takes the committed module like any other source file. Bundling here,
 * once, is what lets that build stay a plain one:
 *
 *   - tr46 and punycode name their entry point only in "main", which esbuild's neutral platform
 *     does not read;
 *   - whatwg-url's lib/encoding.js builds a TextEncoder and a TextDecoder when it loads, before
 *     the runtime has installed them, and @exodus/bytes brings every legacy encoding's tables
 *     (about 180 KB) for percent-encoding in a document's encoding, which the URL API never does:
 *     both imports are pointed at src/url/whatwg-url-glue.ts;
 *   - tr46 (UTS 46 mapping table and regular expressions, most of the size) is needed only for a
 *     host that is not ASCII, so it is a runtime piece (../src/pieces.ts): kept out of the snapshot
 *     altogether, its source on the host, compiled into the isolate by the first such host.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const runtimeRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repositoryRoot = join(runtimeRoot, '..', '..');
/** The glue as the generated module (src/url/generated/) imports it. */
const GLUE = '../whatwg-url-glue.ts';

const requireFromRuntime = createRequire(join(runtimeRoot, 'package.json'));
const whatwgUrlDir = dirname(requireFromRuntime.resolve('whatwg-url/package.json'));
const requireFromWhatwgUrl = createRequire(join(whatwgUrlDir, 'package.json'));
const packageDir = (name) => dirname(requireFromWhatwgUrl.resolve(`${name}/package.json`));
const tr46Dir = packageDir('tr46');
const punycodeDir = dirname(createRequire(join(tr46Dir, 'package.json')).resolve('punycode/package.json'));
const version = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;

const ENTRY = `
export {
  basicURLParse,
  cannotHaveAUsernamePasswordPort,
  hasAnOpaquePath,
  serializeHost,
  serializeInteger,
  serializePath,
  serializeURL,
  serializeURLOrigin,
  setThePassword,
  setTheUsername,
} from 'whatwg-url/lib/url-state-machine.js';
export { parseUrlencodedString, serializeUrlencoded } from 'whatwg-url/lib/urlencoded.js';
`;

const MODULES = {
  // whatwg-url's lib/encoding.js: the runtime's UTF-8.
  encoding: `import { utf8Encode, utf8DecodeWithoutBOM } from '${GLUE}';\nexport { utf8Encode, utf8DecodeWithoutBOM };\n`,
  // @exodus/bytes/whatwg.js: UTF-8 percent-encoding only.
  'percent-encode': `import { percentEncodeAfterEncoding } from '${GLUE}';\nexport { percentEncodeAfterEncoding };\n`,
  // @exodus/bytes/encoding.js, imported only to register the legacy multi-byte encoders.
  'legacy-encodings': '',
  // tr46, a runtime piece the glue loads for the first host that is not ASCII.
  'lazy-tr46': `import { loadTr46 } from '${GLUE}';\nexport const toASCII = (domain, options) => loadTr46().toASCII(domain, options);\n`,
};

const glue = {
  name: 'codemode-whatwg-url-glue',
  setup(plugin) {
    const virtual = (name) => ({ path: name, namespace: 'codemode' });
    plugin.onResolve({ filter: /^\.\/encoding$/ }, (args) =>
      args.importer.startsWith(join(whatwgUrlDir, 'lib')) ? virtual('encoding') : undefined,
    );
    plugin.onResolve({ filter: /^@exodus\/bytes\/whatwg\.js$/ }, () => virtual('percent-encode'));
    plugin.onResolve({ filter: /^@exodus\/bytes\/encoding\.js$/ }, () => virtual('legacy-encodings'));
    plugin.onResolve({ filter: /^tr46$/ }, () => virtual('lazy-tr46'));
    plugin.onResolve({ filter: /^\.\.\/whatwg-url-glue\.ts$/ }, (args) => ({
      path: args.path,
      external: true,
    }));
    plugin.onLoad({ filter: /.*/, namespace: 'codemode' }, (args) => ({
      contents: MODULES[args.path],
      loader: 'js',
      resolveDir: whatwgUrlDir,
    }));
  },
};

const LICENSES = {
  'whatwg-url': [whatwgUrlDir, 'LICENSE.txt'],
  tr46: [tr46Dir, 'LICENSE.md'],
  punycode: [punycodeDir, 'LICENSE-MIT.txt'],
};

const SHARED = {
  // Paths in the output and the metafile are relative to this, whatever the caller's directory.
  absWorkingDir: repositoryRoot,
  bundle: true,
  write: false,
  platform: 'neutral',
  mainFields: ['main'],
  target: 'es2024',
  legalComments: 'none',
  logLevel: 'silent',
};

/** The license texts of `packages`, as lines of a block comment. */
function licensesOf(packages) {
  return packages
    .map((name) => {
      const [dir, file] = LICENSES[name];
      return ` * ${name} ${version(dir)}:\n *\n${readFileSync(join(dir, file), 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => ` *   ${line}`.trimEnd())
        .join('\n')}`;
    })
    .join('\n *\n');
}

/** One ES module bundled from `entry`, with a header naming its inputs, their sizes and licenses. */
async function bundle(entry, sourcefile, packages, types) {
  const result = await build({
    ...SHARED,
    stdin: { contents: entry, resolveDir: whatwgUrlDir, sourcefile },
    format: 'esm',
    metafile: true,
    plugins: [glue],
  });
  const code = result.outputFiles[0].text;
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  const sizes = Object.entries(inputs)
    .map(([path, input]) => [
      path.replace(/^.*node_modules\//, '').replace(/^codemode:/, 'glue: '),
      input.bytesInOutput,
    ])
    .sort((a, b) => b[1] - a[1])
    .map(([path, bytes]) => ` *   ${String(bytes).padStart(7)}  ${path}`)
    .join('\n');
  const from = packages.map((name) => `${name} ${version(LICENSES[name][0])}`);
  const header = `// Generated by packages/runtime/scripts/build-whatwg-url.mjs from ${from.slice(0, -1).join(', ')}${from.length > 1 ? ' and ' : ''}${from.at(-1)}. Do not edit; run pnpm generate.
// Committed, not a build output: ../whatwg-url.ts imports it, so the type-check and an editor need
// it before anything is built, and a bump of the pinned whatwg-url shows here as a diff of what is bundled.
// The package's \`test\` fails while it differs from what the installed packages make.
// @ts-nocheck: third-party JavaScript; ${types} gives it types.
/*
 * Bytes each input contributes (unminified):
${sizes}
 *
${licensesOf(packages)}
 */
`;
  return header + code;
}

/** The text of src/url/generated/whatwg-url.generated.ts, from the installed whatwg-url. */
export function whatwgUrlModule() {
  return bundle(ENTRY, 'whatwg-url-entry.js', ['whatwg-url'], 'whatwg-url.ts');
}

/** The license texts of what the runtime bundle carries from whatwg-url.generated.ts, for its header. */
export function bundleLicenses() {
  return licensesOf(['whatwg-url']);
}

/**
 * tr46's mapping table (190 KB of JSON) as the text of a JSON.parse call rather than an array
 * literal: the isolate compiles the piece from source on every first use, and scanning one string
 * and parsing it as JSON is several times cheaper than compiling the literal. The data is the same.
 */
const mappingTableAsJson = {
  name: 'codemode-tr46-mapping-table',
  setup(plugin) {
    plugin.onLoad({ filter: /[\\/]tr46[\\/]lib[\\/]mappingTable\.json$/ }, (args) => ({
      // The snapshot's JSON.parse (see SNAPSHOT_VALUES): the table evaluates after a program ran.
      contents: `module.exports = ${SNAPSHOT_VALUES}.JSONParse(${JSON.stringify(JSON.stringify(JSON.parse(readFileSync(args.path, 'utf8'))))});\n`,
      loader: 'js',
    }));
  },
};

/**
 * The factory's second parameter: the snapshot's values of the globals the piece's top level reads
 * (../src/pieces.ts hands them over). In the snapshot the piece evaluated before any program ran; now
 * it evaluates on first use, so each such read is pointed at this parameter instead, and a program
 * that replaced JSON.parse, Math.floor or String.fromCharCode first gets what it got before. Reads
 * made on each call stay global reads, as they were.
 */
const SNAPSHOT_VALUES = '__snapshotValues';

/** punycode's top-level reads of globals, each with what it becomes. */
const PUNYCODE_CAPTURES = [
  ['const floor = Math.floor;', `const floor = ${SNAPSHOT_VALUES}.MathFloor;`],
  [
    'const stringFromCharCode = String.fromCharCode;',
    `const stringFromCharCode = ${SNAPSHOT_VALUES}.StringFromCharCode;`,
  ],
];

const punycodeCaptures = {
  name: 'codemode-punycode-captures',
  setup(plugin) {
    plugin.onLoad({ filter: /[\\/]punycode[\\/]punycode\.js$/ }, (args) => {
      let contents = readFileSync(args.path, 'utf8');
      for (const [read, pinned] of PUNYCODE_CAPTURES) {
        // A punycode that no longer reads it this way must be looked at again, not bundled as is.
        if (!contents.includes(read))
          throw new Error(`punycode no longer has \`${read}\`: see PUNYCODE_CAPTURES.`);
        contents = contents.replace(read, pinned);
      }
      return { contents, loader: 'js' };
    });
  },
};

/**
 * tr46 with punycode as the runtime piece's script (../src/pieces.ts): a function whose call evaluates
 * tr46 and returns its exports. Its entry is CommonJS, as tr46 is, so esbuild adds no module
 * interop around it; the one helper left reads Object.getOwnPropertyNames, and the function takes
 * `Object` as its parameter so the runtime hands it the snapshot's, never a program's replacement.
 * Answers the script and the license texts (lines of a block comment) for the file that holds it.
 */
export async function tr46Piece() {
  const result = await build({
    ...SHARED,
    stdin: {
      contents: "module.exports = require('tr46/index.js');\n",
      resolveDir: whatwgUrlDir,
      sourcefile: 'tr46-piece.js',
    },
    format: 'iife',
    globalName: 'tr46',
    minifyWhitespace: true,
    minifySyntax: true,
    plugins: [mappingTableAsJson, punycodeCaptures],
  });
  return {
    // Strict, as every module inside it is: a sloppy frame would hand its function to a program's
    // Error.prepareStackTrace (CallSite.getFunction) while the piece evaluates.
    source: `(function(Object,${SNAPSHOT_VALUES}){"use strict";${result.outputFiles[0].text}return tr46;})`,
    licenses: licensesOf(['tr46', 'punycode']),
  };
}
