// What the CLI does after an interrupt that the command has already wound down from.

/**
 * After an interrupt, whatever was abandoned (a request to a hung service) must not keep tfgate alive:
 * once the command has wound down, exit within a second even if a socket is still open.
 */
export async function exitPromptlyIfInterrupted<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'interrupted') setTimeout(() => process.exit(), 1000).unref();
    throw error;
  }
}
