/** The operator helpers open keep-alive connections to the emulators; close them so Jest can exit. */
afterAll(async () => {
  const { dynamo } = await import('../../../lambdas/store/dynamo');
  dynamo.destroy();
});
