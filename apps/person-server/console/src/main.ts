import type { SigningKey } from '@mission/mission-client';
import { openMission } from './detail.js';
import { byId, errorText, notice } from './dom.js';
import { refreshInbox } from './inbox.js';
import { createKey, forgetKey, importKey, loadKey } from './key-store.js';
import { refreshMissions, type MissionView } from './missions.js';
import { connect, disconnect } from './session.js';

/**
 * The person's console (ADR 0040). Without a key it offers to create or import one; with a key it shows the
 * thumbprint to enrol as `principals[].jkt`, then the inbox and the missions, read with signed requests.
 */
async function showKey(key: SigningKey | undefined): Promise<void> {
  byId('key-facts').hidden = key === undefined;
  byId('key-create').hidden = key !== undefined;
  byId('key-import-box').hidden = key !== undefined;
  byId('key-forget').hidden = key === undefined;
  byId('inbox-section').hidden = true;
  byId('missions-section').hidden = true;
  byId('detail-section').hidden = true;
  if (key === undefined) {
    disconnect();
    byId('key-status').textContent = 'This browser holds no key yet. Create one here (its private half never leaves the browser) or import the private JWK you already enrolled.';
    return;
  }
  byId('key-jkt').textContent = key.jkt;
  byId('key-status').textContent = `This browser holds a non-extractable ${key.alg} key.`;
  try {
    await connect(key);
    await refreshAll();
    byId('key-identity').textContent = 'enrolled: the Person Server accepts this key';
    byId('inbox-section').hidden = false;
    byId('missions-section').hidden = false;
  } catch (error) {
    const status = (error as { status?: number }).status;
    byId('key-identity').textContent =
      status === 401 ? 'not enrolled: give this thumbprint to your administrator as your principals[].jkt, then reload' : `cannot reach the Person Server: ${errorText(error)}`;
  }
}

const reloadMissions = (): void => void refreshMissions(open).catch(report);
const open = (mission: MissionView): void => void openMission(mission, reloadMissions);

async function refreshAll(): Promise<void> {
  await Promise.all([refreshInbox(() => void refreshAll().catch(report)), refreshMissions(open)]);
}

function report(error: unknown): void {
  notice(errorText(error), 'error');
}

function wire(): void {
  byId('key-create').addEventListener('click', () => void createKey().then(showKey).catch(report));
  byId('key-import-button').addEventListener('click', () => {
    const box = byId<HTMLTextAreaElement>('key-import');
    const text = box.value;
    box.value = '';
    void importKey(text).then(showKey).catch(report);
  });
  byId('key-forget').addEventListener('click', () => void forgetKey().then(() => showKey(undefined)).catch(report));
  byId('inbox-refresh').addEventListener('click', () => void refreshAll().catch(report));
  byId('missions-refresh').addEventListener('click', () => void refreshAll().catch(report));
  void loadKey().then(showKey).catch(report);
}

wire();
