// What code names and which of its identifiers become keyword terms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeTerms, isCodeFragment, isFileName, namedInCode, shapedNames, toolsInProse } from './identifiers.ts';

const names = (code: string, lang?: string): string[] => namedInCode(code, lang).map((n) => n.name);

test("imports and requires name packages, without subpaths, versions, relative paths or the runtime's own modules", () => {
  const js = [
    "const express = require('express');",
    "const { createAdapter } = require('@socket.io/redis-adapter/dist/index');",
    "import { Server } from 'socket.io';",
    "import fs from 'node:fs';",
    "import path from 'path';",
    "const User = require('./models/user');",
    "const lazy = await import('lodash/debounce');",
  ].join('\n');
  assert.deepEqual(names(js, 'javascript'), ['express', '@socket.io/redis-adapter', 'socket.io', 'lodash']);
  const py = 'import os, sys\nimport pandas as pd\nfrom sqlalchemy.orm import Session\nfrom .models import Order\nimport numpy';
  assert.deepEqual(names(py, 'python'), ['sqlalchemy', 'pandas', 'numpy']);
});

test('install commands, shell commands and base images name packages and tools', () => {
  assert.deepEqual(
    names('npm install --save socket.io-client@4.6.1 ioredis\npip install -r requirements.txt "pandas[excel]>=2.1"', 'bash'),
    ['socket.io-client', 'ioredis', 'pandas', 'npm', 'pip'],
  );
  assert.deepEqual(
    names('sudo systemctl restart nginx && cd /srv\nPGPASSWORD=x pg_dump -Fc chat | gzip > out.dump\n# kubectl is next\necho done', 'bash'),
    ['systemctl', 'pg_dump', 'gzip'],
  );
  // Outside a shell block only lines with a prompt are commands.
  assert.deepEqual(names('kubectl apply -f x.yaml\n$ helm upgrade chat ./chart'), ['helm']);
  assert.deepEqual(names('FROM node:18-alpine AS build\nservices:\n  cache:\n    image: "bitnami/redis:7.2"'), ['node', 'redis']);
});

test('terms: shaped identifiers first (versions, error codes, dotted and snake names), then other names; no keywords', () => {
  const code =
    "const res = await fetch(url);\nif (err.code === 'ERR_CONNECTION_REFUSED') retry();\nsocket.io-client@4.6.1 on Node.js v18.15.0\nrun pg_dump --file backup.dump";
  const terms = codeTerms(code);
  for (const t of [
    'ERR_CONNECTION_REFUSED',
    'err.code',
    'socket.io-client',
    '4.6.1',
    'Node.js',
    'v18.15.0',
    'pg_dump',
    'backup.dump',
    'fetch',
    'retry',
    'url',
  ])
    assert.ok(terms.includes(t), `${t} in ${terms.join(' ')}`);
  for (const t of ['const', 'await', 'if', 'res']) assert.ok(!terms.includes(t), `${t} not in ${terms.join(' ')}`);
  assert.ok(terms.indexOf('pg_dump') < terms.indexOf('fetch'));
  assert.equal(codeTerms('a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(3).replace(/ /g, 'xx '), 5).length, 5);
});

test('code fragments and keywords are not names; files, shaped words and lower-case tools are', () => {
  for (const junk of ['const', 'res.status(500).json', '});', 'a = b', 'x => y', 'Await', 'return', '{}', '...', 'useState()'])
    assert.ok(isCodeFragment(junk), junk);
  for (const name of ['Express', 'socket.io', 'pg_dump', 'PostgreSQL', 'docker-compose.yml']) assert.ok(!isCodeFragment(name), name);
  for (const file of ['package.json', 'docker-compose.yml', '.env', 'src/config.js', 'Dockerfile']) assert.ok(isFileName(file), file);
  for (const notFile of ['console.log', 'e.g', 'Node.JS']) assert.ok(!isFileName(notFile), notFile);
  // The ".js" convention names projects (one capitalised word); files are lower or camel case, or carry a path.
  for (const project of ['Node.js', 'Vue.js', 'Next.js', 'Express.js', 'D3.js']) assert.ok(!isFileName(project), project);
  for (const file of ['server.js', 'authController.js', 'MessageService.js', 'src/Index.js', 'next.config.js'])
    assert.ok(isFileName(file), file);
  assert.deepEqual(shapedNames('Use PostgreSQL (OAuth2) with JWT and Node.js, NOTE: GitHub. Task.Implement and Redis'), [
    'PostgreSQL',
    'OAuth2',
    'JWT',
    'Node.js',
    'GitHub',
  ]);
  assert.deepEqual(toolsInProse('put nginx in front, keep docker-compose.yml, run pg_dump. make the go build'), ['nginx', 'pg_dump']);
});
