/** The position a process's supervised subscription has handled up to (`hcn_subscription_position`), if it says. */
export async function subscriptionPosition(url: string, subscription: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`hcn_subscription_position{subscription="${subscription}"}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}
