// The local stack's API reference: Swagger UI over the contract the stack serves at /openapi.json.
// A file of its own, not an inline script, so that the page's policy allows scripts from this host only.
/* global window, document, fetch, SwaggerUIBundle */
window.addEventListener('load', async () => {
  const script = document.querySelector('script[data-openapi]');
  const spec = await (await fetch(script.dataset.openapi)).json();
  // "Try it out" calls this stack: its address first, before the document's placeholder.
  spec.servers = [
    { url: `${window.location.origin}${script.dataset.apiPrefix}`, description: 'This local stack' },
    ...(spec.servers ?? []),
  ];
  SwaggerUIBundle({
    spec,
    dom_id: '#reference',
    deepLinking: true,
    // No spec validator: it would send the document to validator.swagger.io.
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    showExtensions: true,
    showCommonExtensions: true,
  });
});
