// A Sluice dispatcher in Node.js from the proto files alone (api/src/main/proto/sluice/v1/): it connects,
// says Hello, looks the table up, REGISTERs, RESETs from its saved checkpoint, prints each row change as a JSON
// line, saves the checkpoint after each whole transaction and sends heartbeats and credits. Restarted, it
// resumes right after the last transaction it saved. The protocol rules it follows are PROTOCOL.md's
// "Dispatcher (collector) rules"; a real client also re-registers after a lost stream (the Java library does).
//
//   node dispatcher.js --broker 127.0.0.1:8300 --table demo.orders --checkpoint orders.checkpoint [--stop-after 10]
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const args = parseArgs(process.argv.slice(2));
const PROTO_DIR = process.env.SLUICE_PROTO_DIR || path.join(__dirname, '..', '..', 'api', 'src', 'main', 'proto');
const QUEUE_BYTES = 16 * 1024 * 1024;   // the credit this dispatcher grants: what it can hold unprinted

const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_DIR] };
const sluice = grpc.loadPackageDefinition(protoLoader.loadSync('sluice/v1/service.proto', options)).sluice.v1;
// the same files through protobufjs, to count received bytes as the broker does (DataEvent's serialized size)
const root = new protobuf.Root();
root.resolvePath = (origin, target) => path.join(PROTO_DIR, target);
root.loadSync('sluice/v1/service.proto', { keepCase: true });
const DataEvent = root.lookupType('sluice.v1.DataEvent');

const client = new sluice.EventService(args.broker, grpc.credentials.createInsecure());
const dispatcherId = { high: crypto.randomBytes(8).readBigUInt64BE().toString(), low: crypto.randomBytes(8).readBigUInt64BE().toString() };
const collectorId = 'node-example-' + process.pid;

let checkpoint = readCheckpoint();   // BigInt: every transaction with commit ts <= checkpoint was printed
let columns = [];
let epoch = 0n;
let lastSeq = 0n;
let receivedBytes = 0n;
let printed = 0;
let pending = [];                    // rows of the transaction being received (it may come in fragments)
let stream;

main().catch((e) => fail(e.message));

async function main() {
  const info = await unary('GetTableSchema', { table_name: args.table, at_ts: '0' });
  columns = info.columns.map((c) => c.name);
  const span = { table_id: info.table_id, hash_lo: '0', hash_hi: '4294967296' };
  if (checkpoint === null) {   // no saved checkpoint: start at the broker's present
    const topology = await unary('GetTopology', {});
    const me = topology.members.find((m) => m.node_id === topology.this_node_id) || topology.members[0];
    checkpoint = BigInt(me ? me.resolved_ts : 0);
  }
  stream = client.Connect();
  stream.on('data', (msg) => onMessage(msg, span));
  stream.on('error', (e) => fail('stream failed: ' + e.details));
  stream.on('end', () => fail('the broker ended the stream'));
  stream.write({ hello: { collector_id: collectorId, protocol_version: 1,
    required_features: ['credits', 'resolved-batch'], optional_features: ['fragmented-txn'] } });
  setInterval(sendHeartbeat, 1000).unref();
  setInterval(sendCredit, 200).unref();
}

function onMessage(msg, span) {
  switch (msg.kind) {
    case 'welcome':
      log(`welcomed by ${msg.welcome.broker_id}; registering ${args.table} from ${checkpoint}`);
      request('DISPATCHER_ACTION_REGISTER', 0n, span);
      break;
    case 'ready':
      epoch = 1n;
      lastSeq = 0n;
      receivedBytes = 0n;
      request('DISPATCHER_ACTION_RESET', epoch, span);
      break;
    case 'control_ack':
      if (msg.control_ack.status === 'ACK_STATUS_REJECTED') {
        fail(`${msg.control_ack.action} rejected (${msg.control_ack.code}): ${msg.control_ack.reason}`);
      }
      break;
    case 'handshake':
      if (BigInt(msg.handshake.epoch) !== epoch || BigInt(msg.handshake.seq) !== 1n) return;
      columns = msg.handshake.table_info.columns.map((c) => c.name);
      lastSeq = 1n;
      log(`streaming epoch ${epoch} from ${checkpoint}`);
      break;
    case 'event_batch':
      if (BigInt(msg.event_batch.epoch) !== epoch) return;   // an older epoch: stale, dropped
      for (const e of msg.event_batch.events) onEvent(e);
      break;
    case 'resolved_batch':
      for (const r of msg.resolved_batch.resolved) {
        if (BigInt(r.epoch) === epoch && BigInt(r.ts) > checkpoint && pending.length === 0) {
          saveCheckpoint(BigInt(r.ts));   // every transaction <= ts was delivered and printed
        }
      }
      break;
    case 'stream_error':
      fail(`StreamError ${msg.stream_error.code}: ${msg.stream_error.detail}`);
      break;
    default:
      break;
  }
}

function onEvent(e) {
  const seq = BigInt(e.seq);
  if (seq !== lastSeq + 1n) fail(`seq gap: ${seq} after ${lastSeq} (a real client RESETs with a higher epoch)`);
  lastSeq = seq;
  receivedBytes += BigInt(DataEvent.encode(DataEvent.fromObject(e)).finish().length);
  if (e.payload === 'ddl') {
    columns = e.ddl.table_info_after.columns.map((c) => c.name);
    print({ commit_ts: e.ddl.commit_ts, ddl: e.ddl.ddl_type, query: e.ddl.query });
  } else if (e.payload === 'dml') {
    pending.push(...e.dml.rows.map((row) => ({ commit_ts: e.dml.commit_ts, row })));
    if (e.dml.last_fragment) {
      for (const { commit_ts, row } of pending) {
        const image = row.after.length > 0 ? row.after : row.before;
        print({ commit_ts, op: row.op.replace('ROW_OP_', ''), row: named(image) });
      }
      pending = [];
      saveCheckpoint(BigInt(e.dml.commit_ts));
      if (printed >= args.stopAfter) {
        log(`printed ${printed} rows; checkpoint ${checkpoint} saved; exiting`);
        process.exit(0);
      }
    }
  }
}

function named(values) {
  const out = {};
  values.forEach((v, i) => { out[columns[i] || `col${i}`] = plain(v); });
  return out;
}

// a Value's one kind as plain JSON (value.proto): int64 and decimals as strings keep their precision
function plain(v) {
  switch (v.kind) {
    case 'null_value': return null;
    case 'unavailable': return { unavailable: true };
    case 'bytes_value': return { base64: Buffer.from(v.bytes_value).toString('base64') };
    case 'uuid_value': return Buffer.from(v.uuid_value).toString('hex');
    case 'array_value': return v.array_value.elements.map(plain);
    case 'timestamp_value': return v.timestamp_value;
    default: return v[v.kind];
  }
}

function request(action, requestEpoch, span) {
  stream.write({ dispatcher_request: { dispatcher_id: dispatcherId, changefeed_id: collectorId, span, action,
    epoch: requestEpoch.toString(), start_ts: checkpoint.toString() } });
}

function sendHeartbeat() {
  if (epoch > 0n) {
    stream.write({ heartbeat_batch: { heartbeats: [{ dispatcher_id: dispatcherId, epoch: epoch.toString(),
      checkpoint_ts: checkpoint.toString() }] } });
  }
}

function sendCredit() {
  if (epoch > 0n) {   // this example prints as it receives: its queue is always free
    stream.write({ credit_report: {
      changefeeds: [{ changefeed_id: collectorId, available_bytes: String(QUEUE_BYTES), received_bytes: receivedBytes.toString() }],
      dispatchers: [{ dispatcher_id: dispatcherId, epoch: epoch.toString(), available_bytes: String(QUEUE_BYTES),
        received_bytes: receivedBytes.toString() }] } });
  }
}

function print(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
  if (obj.row) printed++;
}

function readCheckpoint() {
  try {
    return BigInt(fs.readFileSync(args.checkpoint, 'utf8').trim());
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw e;
  }
}

// atomically: a crash leaves the old checkpoint or the new one
function saveCheckpoint(ts) {
  const tmp = args.checkpoint + '.tmp';
  fs.writeFileSync(tmp, ts.toString());
  fs.renameSync(tmp, args.checkpoint);
  checkpoint = ts;
}

function unary(method, req) {
  return new Promise((resolve, reject) => client[method](req, { deadline: Date.now() + 10000 }, (err, res) =>
    err ? reject(new Error(`${method} at ${args.broker}: ${grpc.status[err.code]}: ${err.details}`)) : resolve(res)));
}

function log(text) {
  process.stderr.write(`[node-dispatcher] ${text}\n`);
}

function fail(text) {
  log('failed: ' + text);
  process.exit(1);
}

function parseArgs(argv) {
  const a = { broker: '127.0.0.1:8300', table: 'demo.orders', checkpoint: 'orders.checkpoint', stopAfter: Infinity };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (m, c) => c.toUpperCase());
    if (!(key in a)) {
      process.stderr.write(`unknown option ${argv[i]}; options: --broker --table --checkpoint --stop-after\n`);
      process.exit(2);
    }
    a[key] = key === 'stopAfter' ? Number(argv[i + 1]) : argv[i + 1];
  }
  return a;
}
