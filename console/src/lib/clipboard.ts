// Copies text and says so. The Clipboard API needs a secure context (https,
// or localhost/127.0.0.1); elsewhere the old selection-based copy is tried.
import { announce, announceError } from './announce.js';

export async function copyText(text: string, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    announce(`${what} copied.`);
    return;
  } catch {
    // Fall through to the selection copy.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (copied) announce(`${what} copied.`);
  else announceError(`${what} could not be copied: select it in its field and copy it by hand.`);
}
