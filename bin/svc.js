#!/usr/bin/env node
// Entry point of `npx svc` and `npm start`: runs the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
