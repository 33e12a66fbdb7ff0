/** PII redaction: each entity, each mode, each replace style, and the entities filter. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ibanValid, luhnValid } from '../../src/engine/pii/patterns.js';
import { redactPii } from '../../src/engine/pii/redact.js';

const fast = (text: string, extra = {}) => redactPii(text, { mode: 'fast', ...extra });

describe('PII patterns', () => {
  it('checks card numbers with Luhn and IBANs with mod 97', () => {
    assert.ok(luhnValid('4111111111111111'));
    assert.ok(!luhnValid('4111111111111112'));
    assert.ok(ibanValid('GB82 WEST 1234 5698 7654 32'));
    assert.ok(ibanValid('DE89370400440532013000'));
    assert.ok(!ibanValid('GB82 WEST 1234 5698 7654 33'));
  });
});

describe('redactPII', () => {
  it('EMAIL', async () => {
    assert.equal(await fast('Write to jane.doe+news@mail.example.co.uk today.'), 'Write to <EMAIL> today.');
  });

  it('PHONE: international and national forms, not dates or short numbers', async () => {
    assert.equal(await fast('Call +44 20 7946 0958 or (212) 555-0147.'), 'Call <PHONE> or <PHONE>.');
    assert.equal(await fast('Call +1-202-555-0173 now'), 'Call <PHONE> now');
    assert.equal(await fast('On 2026-11-21 we sold 1200 units, version 3.14.'), 'On 2026-11-21 we sold 1200 units, version 3.14.');
  });

  it('FINANCIAL: card numbers that pass Luhn and IBANs that pass their checksum', async () => {
    assert.equal(await fast('Card 4111 1111 1111 1111 expires.'), 'Card <FINANCIAL> expires.');
    assert.equal(await fast('Card 4111 1111 1111 1112 expires.'), 'Card 4111 1111 1111 1112 expires.');
    assert.equal(await fast('IBAN GB82 WEST 1234 5698 7654 32 please'), 'IBAN <FINANCIAL> please');
  });

  it('SECRET: API keys, tokens, private keys and JWTs', async () => {
    const key = `-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----`;
    assert.equal(await fast(`key:\n${key}\nend`), 'key:\n<SECRET>\nend');
    assert.equal(await fast('export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx1234'), 'export OPENAI_API_KEY=<SECRET>');
    assert.equal(await fast('token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB used'), 'token <SECRET> used');
    assert.equal(await fast('AWS AKIAIOSFODNN7EXAMPLE id'), 'AWS <SECRET> id');
    assert.equal(await fast('password: hunter2hunter2!'), 'password: <SECRET>!');
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    assert.equal(await fast(`Authorization: ${jwt}`), 'Authorization: <SECRET>');
  });

  it('PERSON and LOCATION: heuristics in fast mode', async () => {
    assert.equal(await fast('Ask Dr. Robert Smith at 221 Baker Street today.'), 'Ask <PERSON> at <LOCATION> today.');
  });

  it('PERSON and LOCATION: the language model in accurate mode', async () => {
    const text = 'Yesterday Jane Doe met Barack Obama in Chicago.';
    assert.equal(await redactPii(text, { mode: 'accurate' }), 'Yesterday <PERSON> met <PERSON> in <LOCATION>.');
    assert.equal(await fast(text), text); // no honorific, no street: the heuristics see nothing
  });

  it('aggressive uses both', async () => {
    const text = 'Mr. Quentin Blake lives at 12 Elm Road; Barack Obama lives in Chicago.';
    assert.equal(await redactPii(text, { mode: 'aggressive' }), '<PERSON> lives at <LOCATION>; <PERSON> lives in <LOCATION>.');
  });

  it('entities limits what is redacted', async () => {
    const text = 'Mail ann@example.com or call +44 20 7946 0958.';
    assert.equal(await fast(text, { entities: ['PHONE'] }), 'Mail ann@example.com or call <PHONE>.');
  });

  it('replaceStyle: tag, mask, remove', async () => {
    const text = 'Mail ann@example.com now';
    assert.equal(await fast(text, { replaceStyle: 'tag' }), 'Mail <EMAIL> now');
    assert.equal(await fast(text, { replaceStyle: 'mask' }), 'Mail *************** now');
    assert.equal(await fast(text, { replaceStyle: 'remove' }), 'Mail  now');
  });
});
