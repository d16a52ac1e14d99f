/** Resolves on the first SIGTERM or SIGINT; a second one exits at once. */
export function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.once('SIGTERM', () => process.exit(1));
      process.once('SIGINT', () => process.exit(1));
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
