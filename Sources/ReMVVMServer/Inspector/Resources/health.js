// Health at a glance, once a second from GET /stats (or GET /metrics on a server without it):
// subscribers, actions per second (versions over the server's clock) and event latency (what
// actionlog.js measures), each a small hand-drawn canvas chart of the last minute.
import { describeFailure, now, request } from './api.js';

const $ = (id) => document.getElementById(id);
const SAMPLES = 60;

class Chart {
  /** @param {{color: string, dashed?: boolean}[]} series */
  constructor(canvas, series, format) {
    this.canvas = canvas;
    this.series = series;
    this.format = format;
    this.values = series.map(() => []);
  }

  push(values) {
    values.forEach((value, index) => {
      const line = this.values[index];
      line.push(value);
      if (line.length > SAMPLES) line.shift();
    });
    this.draw();
  }

  draw() {
    const { canvas } = this;
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(60, Math.round(canvas.clientWidth * ratio));
    const height = Math.max(30, Math.round(canvas.clientHeight * ratio));
    if (canvas.width !== width || canvas.height !== height) Object.assign(canvas, { width, height });
    const context = canvas.getContext('2d');
    const style = getComputedStyle(document.documentElement);
    context.clearRect(0, 0, width, height);
    const all = this.values.flat().filter((value) => value !== null);
    const top = Math.max(1e-9, ...all) * 1.15;
    const pad = 4 * ratio;
    const x = (index) => width - pad - (SAMPLES - 1 - index) * ((width - 2 * pad) / (SAMPLES - 1));
    const y = (value) => height - pad - (value / top) * (height - 2 * pad);
    this.series.forEach((series, index) => {
      const line = this.values[index];
      const offset = SAMPLES - line.length;
      context.strokeStyle = style.getPropertyValue(series.color).trim() || '#888';
      context.lineWidth = 1.5 * ratio;
      context.setLineDash(series.dashed ? [4 * ratio, 3 * ratio] : []);
      context.beginPath();
      let drawing = false;
      line.forEach((value, i) => {
        if (value === null) {
          drawing = false;
          return;
        }
        if (drawing) context.lineTo(x(i + offset), y(value));
        else context.moveTo(x(i + offset), y(value));
        drawing = true;
      });
      context.stroke();
    });
    context.setLineDash([]);
    context.fillStyle = style.getPropertyValue('--muted').trim() || '#888';
    context.font = `${10 * ratio}px system-ui, sans-serif`;
    context.fillText(`max ${this.format(top / 1.15)}`, pad, 11 * ratio);
  }
}

/** The Prometheus text's value of `name` with `labels` (a fallback when /stats is missing). */
function metric(text, name, labels = '') {
  const line = text.split('\n').find((candidate) => candidate.startsWith(name + (labels ? `{${labels}}` : ' ')));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

/**
 * The health panel. `storeVersion`, when given, is the inspected store's version now (another
 * store than `default`, whose version `/stats` does not carry): the rate is counted from it.
 */
export function createHealth({ storeVersion = null } = {}) {
  const number = (value) => (value === null ? '–' : value >= 100 ? value.toFixed(0) : value.toFixed(1));
  const ms = (value) => (value === null ? '–' : value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(1)} ms`);
  const charts = {
    subscribers: new Chart($('chart-subscribers'), [{ color: '--accent' }, { color: '--ok', dashed: true }], number),
    rate: new Chart($('chart-rate'), [{ color: '--accent' }], number),
    latency: new Chart($('chart-latency'), [{ color: '--accent' }, { color: '--warn', dashed: true }], ms),
  };
  const offsets = [];
  let latencies = [];
  let previous = null;
  let useMetrics = false;
  let timer = null;

  async function sample() {
    const sent = now();
    const answer = await request(useMetrics ? 'metrics' : 'stats');
    const received = now();
    if (!answer.ok) {
      if (answer.status === 404 && !useMetrics) {
        useMetrics = true;
        return sample();
      }
      $('health-status').textContent = describeFailure(answer);
      return;
    }
    let version;
    let events;
    let viewModels;
    let serverTime = (sent + received) / 2;
    if (useMetrics) {
      version = metric(answer.body, 'remvvm_store_version');
      events = metric(answer.body, 'remvvm_sse_subscribers', 'stream="events"') ?? 0;
      viewModels = metric(answer.body, 'remvvm_sse_subscribers', 'stream="viewmodels"') ?? 0;
    } else {
      ({ version } = answer.body);
      ({ events, viewModels } = answer.body.subscribers);
      serverTime = Date.parse(answer.body.time);
      // Offset of the server's clock from ours, NTP-style: kept from the fastest recent exchange.
      offsets.push({ offset: serverTime - (sent + received) / 2, rtt: received - sent });
      if (offsets.length > 30) offsets.shift();
      showProcess(answer.body.process, serverTime);
    }
    if (storeVersion) version = storeVersion();
    $('health-status').textContent = [useMetrics ? 'from /metrics' : '', storeVersion ? 'subscribers: store default' : ''].filter(Boolean).join(' · ');
    const known = previous && previous.version !== null && version !== null && serverTime > previous.time;
    const rate = known ? ((version - previous.version) * 1000) / (serverTime - previous.time) : null;
    previous = { version, time: serverTime };
    const sorted = latencies.sort((a, b) => a - b);
    const median = sorted.length ? sorted[Math.floor(sorted.length / 2)] : null;
    const worst = sorted.length ? sorted[sorted.length - 1] : null;
    latencies = [];
    charts.subscribers.push([events + viewModels, viewModels]);
    charts.rate.push([rate]);
    charts.latency.push([median, worst]);
    $('health-subscribers').textContent = `${events + viewModels} (${events} state + ${viewModels} view-model)`;
    $('health-subscribers').dataset.events = String(events);
    $('health-rate').textContent = number(rate);
    $('health-latency').textContent = median === null ? 'no live events' : `median ${ms(median)} · max ${ms(worst)} (${sorted.length})`;
  }

  let lastProcess = null;
  function showProcess(process, time) {
    if (!process) return;
    const cpu = lastProcess ? ((process.cpuSeconds - lastProcess.cpuSeconds) * 100000) / Math.max(1, time - lastProcess.time) : null;
    lastProcess = { cpuSeconds: process.cpuSeconds, time };
    $('health-process').textContent = `Server process: ${(process.residentMemoryBytes / 1048576).toFixed(0)} MiB resident, ${process.openDescriptors} open descriptors${cpu === null ? '' : `, CPU ${cpu.toFixed(0)} %`}, started ${new Date(process.startedAt).toLocaleString()}.`;
  }

  return {
    start() {
      if (timer === null) {
        sample();
        timer = setInterval(sample, 1000);
      }
    },
    /** One event latency sample in milliseconds. */
    latency(value) {
      latencies.push(Math.max(0, value));
    },
    /** The server's clock minus ours in ms, or null before the first /stats answer. */
    clockOffset() {
      if (!offsets.length) return null;
      return offsets.reduce((best, sample) => (sample.rtt < best.rtt ? sample : best)).offset;
    },
  };
}
