/** The operator helpers open keep-alive connections to the emulators; close them so Jest can exit. */
afterAll(async () => {
  const { dynamo } = await import('#platform/clients/dynamodb');
  dynamo().destroy();
});
