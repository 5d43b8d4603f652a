import { operation } from '#contract/operations/getOpenApiDocument';
import { servedDocument } from '#domain/reference/served-document';
import { publicApiHandler } from '#http/api-handler';

export const handler = publicApiHandler(operation, async ({ headers }) => servedDocument(headers['if-none-match']));
