/** How the page writes figures, times and states. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const time = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const whole = new Intl.NumberFormat();

export const number = (value) => (typeof value === 'number' ? whole.format(value) : '—');
export const at = (iso) => (iso ? dateTime.format(new Date(iso)) : '—');
export const clock = (iso) => (iso ? time.format(new Date(iso)) : '—');
export const seconds = (value) => (typeof value === 'number' ? `${value.toFixed(1)} s` : '—');
export const percent = (value) => `${Math.round(value)} %`;

export function bytes(value) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let amount = value;
  let unit = 0;
  while (amount >= 1024 && unit < units.length - 1) {
    amount /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? amount : amount.toFixed(amount < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A time in the source as m:ss.s. */
export function sourceTime(value) {
  const minutes = Math.floor(value / 60);
  return `${minutes}:${(value - minutes * 60).toFixed(1).padStart(4, '0')}`;
}

/** Words for the API's names: `under_30` → "under 30", `job.completed` stays. */
export const words = (value) => (value === null || value === undefined ? '—' : String(value).replaceAll('_', ' '));

export const isActive = (status) => status === 'queued' || status === 'processing';
