/**
 * The config file and the names made from it: each key checked with a sentence naming it, files
 * too large or too deep refused before they cost anything, names that collide or are reserved
 * refused naming both, and the approval globs matched in bounded time.
 */

import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tooLargeMessage } from '@supolka/codemode-executor/cli';
import { afterAll, describe, expect, test } from 'vitest';
import { USAGE } from '../../executor/src/cli/args.ts';
import { cli, removeScratch, scratch, write } from '../../executor/test/cli/cli-process.ts';
import { ApprovalPolicy, globMatches } from '../src/approvals.ts';
import { LOGIN_USAGE, MCP_USAGE } from '../src/command-line.ts';
import { CONFIG_BYTES_LIMIT, parseConfig } from '../src/config.ts';
import { functionNames, namespaceNames } from '../src/names.ts';
import {
  ambiguousRuleMessage,
  configKeyMessage,
  journalStoreExposedMessage,
  loginNotHttpMessage,
  loginUnknownServerMessage,
  loginWithoutOauthMessage,
  noServersMessage,
  OAUTH_AND_HEADER_RULE,
  serverNameCollisionMessage,
  serverNameReservedMessage,
  toolNameCollisionMessage,
} from '../src/texts.ts';

afterAll(removeScratch);

const stdio = { command: 'node' };

function refusal(config: unknown): string {
  try {
    parseConfig(JSON.stringify(config), 'mcp.json');
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
}

describe('the config file', () => {
  test.each([
    [
      { mcpServers: { a: stdio }, approvals: { 'a.*': 'maybe' } },
      'approvals["a.*"]',
      'Invalid option: expected one of "allow"|"deny"|"ask".',
    ],
    [
      { mcpServers: { a: stdio }, approvals: { a: { 'x.*': 'maybe' } } },
      'approvals.a["x.*"]',
      'Invalid option: expected one of "allow"|"deny"|"ask".',
    ],
    [
      { mcpServers: { a: stdio }, approvals: { a: 5 } },
      'approvals.a',
      'must be "allow", "deny" or "ask", or an object of tool globs to one of them.',
    ],
    [
      { mcpServers: { a: { command: 'node', args: 'x' } } },
      'mcpServers.a.args',
      'Invalid input: expected array, received string.',
    ],
    [{ mcpServers: { 'my server': { url: 'ftp://host/' } } }, 'mcpServers["my server"].url', 'Invalid URL.'],
    [
      { mcpServers: { a: { command: 'node', extra: 1 } } },
      'mcpServers.a',
      'unknown key "extra"; https://github.com/supolka/codemode/blob/main/docs/mcp.md lists the keys.',
    ],
    [
      { mcpServers: { a: { headers: {} } } },
      'mcpServers.a',
      'must be a stdio server { command, args?, env?, cwd? } or an HTTP server { url, headers? }.',
    ],
    [{ mcpServers: { a: stdio }, timeout: 1.5 }, 'timeout', 'Invalid input: expected int, received number.'],
    [
      { mcpServers: { a: { url: 'https://example.com/mcp', oauth: { tokenFile: 't.json', secret: 'x' } } } },
      'mcpServers.a.oauth',
      'unknown key "secret"; https://github.com/supolka/codemode/blob/main/docs/mcp.md lists the keys.',
    ],
    [
      { mcpServers: { a: { url: 'https://example.com/mcp', oauth: { tokenFile: '' } } } },
      'mcpServers.a.oauth.tokenFile',
      'Too small: expected string to have >=1 characters.',
    ],
    [
      {
        mcpServers: {
          a: {
            url: 'https://example.com/mcp',
            headers: { authorization: 'Bearer x' },
            oauth: { tokenFile: 't' },
          },
        },
      },
      'mcpServers.a.headers.authorization',
      OAUTH_AND_HEADER_RULE,
    ],
    [
      { mcpServers: { a: { command: 'node', upstreamTimeout: 0 } } },
      'mcpServers.a.upstreamTimeout',
      'Too small: expected number to be >=1.',
    ],
    [
      { mcpServers: { a: { url: 'https://example.com/mcp', upstreamTimeout: '5s' } } },
      'mcpServers.a.upstreamTimeout',
      'Invalid input: expected number, received string.',
    ],
    [
      { mcpServers: { a: stdio }, consoleFormat: 'pretty' },
      'consoleFormat',
      'Invalid option: expected one of "string"|"inspect".',
    ],
    [
      { mcpServers: { a: stdio }, colour: 'blue' },
      '(the top level)',
      'unknown key "colour"; https://github.com/supolka/codemode/blob/main/docs/mcp.md lists the keys.',
    ],
    [[], '(the top level)', 'Invalid input: expected object, received array.'],
  ])('%j is refused naming the key', (config, where, rule) => {
    expect(refusal(config)).toBe(configKeyMessage('mcp.json', where, rule));
  });

  test('a config with no servers, and one nested deep inside a key, are refused', () => {
    expect(refusal({ mcpServers: {} })).toBe(noServersMessage('mcp.json'));
    const deep = `{"mcpServers":{"a":{"command":"node","env":{"X":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}}`;
    expect(() => parseConfig(deep, 'mcp.json')).toThrow(
      configKeyMessage('mcp.json', 'mcpServers.a.env.X', 'Invalid input: expected string, received array.'),
    );
  });

  test('the desktop clients’ forms are accepted: type, disabled, env and headers', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: {
          local: {
            type: 'stdio',
            command: 'npx',
            args: ['-y', 'x'],
            env: { A: 'b' },
            cwd: '/tmp',
            disabled: true,
          },
          remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
        },
        approvals: { '*': 'ask' },
        outbound: 'native',
      }),
      'mcp.json',
    );
    expect(Object.keys(config.mcpServers)).toEqual(['local', 'remote']);
  });

  test('each server may bound its own calls (upstreamTimeout), over the top-level bound', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: {
          slow: { command: 'node', upstreamTimeout: 600_000 },
          remote: { url: 'https://example.com/mcp', upstreamTimeout: 5000 },
          plain: stdio,
        },
        upstreamTimeout: 30_000,
      }),
      'mcp.json',
    );
    expect(config.mcpServers.slow?.upstreamTimeout).toBe(600_000);
    expect(config.mcpServers.remote?.upstreamTimeout).toBe(5000);
    expect(config.mcpServers.plain?.upstreamTimeout).toBeUndefined();
  });

  test('a 10 MB config file and a missing --config end the command with exit 2, before any upstream', () => {
    const directory = scratch();
    const big = write(
      directory,
      'big.json',
      `{"mcpServers":{"a":{"command":"${'x'.repeat(10 * 1024 * 1024)}"}}}`,
    );
    const run = cli(['mcp', '--config', big]);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`codemode-executor mcp: ${tooLargeMessage(big, CONFIG_BYTES_LIMIT)}\n`);
    const bare = cli(['mcp']);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toBe(
      `codemode-executor mcp: mcp needs --config FILE, the file naming the MCP servers.\n\n${MCP_USAGE}`,
    );
  });

  test.each([
    ['--timeout', '0', "--timeout must be from 1 to 2147483647 ms; got '0'."],
    ['--memory', '4097', "--memory must be from 8 to 4096 MB; got '4097'."],
    ['--pool-size', '0', "--pool-size must be from 1 to 1024; got '0'."],
  ])(
    '%s %s is a flag error, exit 2: it ended the process with an OptionError before',
    (flag, value, message) => {
      const config = write(scratch(), 'mcp.json', JSON.stringify({ mcpServers: { a: stdio } }));
      expect(cli(['mcp', '--config', config, flag, value])).toStrictEqual({
        status: 2,
        signal: null,
        stdout: '',
        stderr: `codemode-executor mcp: ${message}\n\n${MCP_USAGE}`,
      });
    },
  );

  test('a journal store others may enter, or a durable key too short, ends the command with exit 2, before any upstream', () => {
    const directory = scratch();
    const exposed = join(directory, 'journal');
    mkdirSync(exposed, { mode: 0o755 });
    chmodSync(exposed, 0o755);
    const withStore = write(
      directory,
      'store.json',
      JSON.stringify({ mcpServers: { a: stdio }, journalStore: 'journal' }),
    );
    expect(cli(['mcp', '--config', withStore])).toStrictEqual({
      status: 2,
      signal: null,
      stdout: '',
      stderr: `codemode-executor mcp: ${journalStoreExposedMessage(exposed, 0o755)}\n`,
    });
    const keys = write(directory, 'keys.txt', `k1=${Buffer.alloc(8).toString('base64')}`);
    const withKeys = write(
      directory,
      'keys.json',
      JSON.stringify({ mcpServers: { a: stdio }, durableKeysFile: 'keys.txt' }),
    );
    const refused = cli(['mcp', '--config', withKeys]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^codemode-executor mcp: the durable keys file ${keys}: `));
  });

  test('--console-format takes string or inspect; anything else is a flag error, exit 2', () => {
    const config = write(scratch(), 'mcp.json', JSON.stringify({ mcpServers: { a: stdio } }));
    expect(cli(['mcp', '--config', config, '--console-format', 'pretty'])).toStrictEqual({
      status: 2,
      signal: null,
      stdout: '',
      stderr: `codemode-executor mcp: --console-format must be string or inspect; got 'pretty'.\n\n${MCP_USAGE}`,
    });
  });

  test('login names what is wrong, exit 2, before it listens or reaches any server', () => {
    const config = write(
      scratch(),
      'mcp.json',
      JSON.stringify({ mcpServers: { local: stdio, plain: { url: 'https://example.com/mcp' } } }),
    );
    const login = (...args: string[]) => cli(['mcp', 'login', ...args]);
    expect(login('--config', config)).toMatchObject({
      status: 2,
      stderr: `codemode-mcp login: login takes one argument, the name of the MCP server to authorize; got none.\n\n${LOGIN_USAGE}`,
    });
    expect(login('nowhere', '--config', config)).toMatchObject({
      status: 2,
      stderr: `codemode-mcp login: ${loginUnknownServerMessage('nowhere', config, ['local', 'plain'])}\n`,
    });
    expect(login('local', '--config', config)).toMatchObject({
      status: 2,
      stderr: `codemode-mcp login: ${loginNotHttpMessage('local')}\n`,
    });
    expect(login('plain', '--config', config)).toMatchObject({
      status: 2,
      stderr: `codemode-mcp login: ${loginWithoutOauthMessage('plain', config)}\n`,
    });
    expect(login('--help')).toMatchObject({ status: 0, stdout: LOGIN_USAGE });
  });

  test('help names the command, and help mcp prints its options', () => {
    expect(USAGE).toContain('codemode-executor mcp --config FILE');
    const run = cli(['help', 'mcp']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(MCP_USAGE);
  });
});

describe('names', () => {
  test('config keys become namespaces as the Code Mode sanitizer makes them', () => {
    expect([...namespaceNames(['github', 'my-server', '2fa', 'class']).values()]).toEqual([
      'github',
      'my_server',
      '_2fa',
      'class_',
    ]);
  });

  test('two keys that become one namespace are refused naming both', () => {
    expect(() => namespaceNames(['my-server', 'my.server'])).toThrow(
      serverNameCollisionMessage('my-server', 'my.server', 'my_server'),
    );
  });

  test('a key whose namespace would hide a global is refused naming it and why', () => {
    expect(() => namespaceNames(['console'])).toThrow(
      serverNameReservedMessage(
        'console',
        'console',
        'it would hide the global console that programs rely on',
      ),
    );
    expect(() => namespaceNames(['__dispatch'])).toThrow(
      serverNameReservedMessage('__dispatch', '__dispatch', 'the sandbox binds that name inside the isolate'),
    );
    // A `__` name the sandbox does not bind is a namespace like any other.
    expect(namespaceNames(['__github'])).toStrictEqual(new Map([['__github', '__github']]));
  });

  test('two tools of one server that become one function are refused naming both', () => {
    expect(() => functionNames('github', ['list-issues', 'list issues'])).toThrow(
      toolNameCollisionMessage('github', 'list-issues', 'list issues', 'list_issues'),
    );
  });
});

describe('approval rules', () => {
  const call = (server: string, tool: string) => ({ server: [server], tool: [tool] });

  test('the most specific rule wins; of equal ones the strictest; no match takes the default', () => {
    const policy = new ApprovalPolicy({
      '*': 'ask',
      'github.*': 'allow',
      'github.delete_*': 'deny',
      'github.get*': 'ask',
    });
    expect(policy.decide(call('github', 'delete_repo'))).toEqual({
      decision: 'deny',
      rule: '"github.delete_*": deny',
    });
    expect(policy.decide(call('github', 'list_issues'))).toEqual({
      decision: 'allow',
      rule: '"github.*": allow',
    });
    expect(policy.decide(call('slack', 'post'))).toEqual({ decision: 'ask', rule: '"*": ask' });
    expect(new ApprovalPolicy({}).decide(call('a', 'b'))).toEqual({
      decision: 'allow',
      rule: 'defaultApproval: allow',
    });
    expect(new ApprovalPolicy({}, 'deny').decide(call('a', 'b'))).toEqual({
      decision: 'deny',
      rule: 'defaultApproval: deny',
    });
    const tie = new ApprovalPolicy({ 'a.*x': 'allow', 'a.x*': 'deny' });
    expect(tie.decide(call('a', 'xx')).decision).toBe('deny');
  });

  test('server and tool match as separate parts: a server rule never reaches into a tool name', () => {
    const policy = new ApprovalPolicy({
      fs: 'deny',
      'fs.admin': { '*': 'allow' },
      'f*': { 'admin.*': 'ask' },
    });
    expect(policy.decide(call('fs', 'admin.drop_all'))).toEqual({
      decision: 'ask',
      rule: '"f*": { "admin.*": ask }',
    });
    expect(policy.decide(call('fs', 'read'))).toEqual({ decision: 'deny', rule: '"fs": deny' });
    expect(policy.decide(call('fs.admin', 'drop_all'))).toEqual({
      decision: 'allow',
      rule: '"fs.admin": { "*": allow }',
    });
    // A star in the server part stops at the server's name.
    expect(new ApprovalPolicy({ 'f*.drop_all': 'deny' }).decide(call('fs', 'admin.drop_all')).decision).toBe(
      'allow',
    );
  });

  test('a rule matches the raw spelling or the sanitized one of each part', () => {
    const names = { server: ['my-server', 'my_server'], tool: ['get-item', 'get_item'] };
    expect(new ApprovalPolicy({ 'my-server.get-item': 'deny' }).decide(names).decision).toBe('deny');
    expect(new ApprovalPolicy({ 'my_server.get_item': 'deny' }).decide(names).decision).toBe('deny');
    expect(new ApprovalPolicy({ my_server: { 'get-item': 'deny' } }).decide(names).decision).toBe('deny');
  });

  test('a flat key that could be read two ways is refused with the two ways to write it', () => {
    expect(refusal({ mcpServers: { fs: stdio }, approvals: { 'fs.admin.*': 'allow' } })).toBe(
      configKeyMessage(
        'mcp.json',
        'approvals["fs.admin.*"]',
        ambiguousRuleMessage(
          [
            ['fs', 'admin.*'],
            ['fs.admin', '*'],
          ],
          'allow',
        ),
      ),
    );
    expect(refusal({ mcpServers: { fs: stdio, 'fs.admin': stdio }, approvals: { 'fs.*': 'deny' } })).toBe(
      configKeyMessage(
        'mcp.json',
        'approvals["fs.*"]',
        ambiguousRuleMessage(
          [
            ['fs', '*'],
            ['fs.*', '*'],
          ],
          'deny',
        ),
      ),
    );
    expect(
      refusal({
        mcpServers: { fs: stdio, 'fs.admin': stdio },
        approvals: { fs: { '*': 'deny' }, 'fs.admin': { 'drop.*': 'ask' }, 'fs.read': 'allow' },
        defaultApproval: 'deny',
      }),
    ).toBe('accepted');
  });

  test('stars and literals match as globs, and a pathological pattern still ends', () => {
    expect(globMatches('a*b*c', 'aXXbYYc')).toBe(true);
    expect(globMatches('a*b*c', 'aXXbYY')).toBe(false);
    expect(globMatches('*', '')).toBe(true);
    expect(globMatches('a.b', 'a.b')).toBe(true);
    expect(globMatches('a.b', 'aXb')).toBe(false);
    // Exponential for a backtracking regular expression; length × length here.
    expect(globMatches(`${'*a'.repeat(500)}b`, 'a'.repeat(20_000))).toBe(false);
  });
});
