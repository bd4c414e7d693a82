'use strict';
// protobuf `message Blob { bytes data = 1; }` by hand (field 1, wire type 2): the one message of
// bench/transport.js, the same bytes for every server and the client, and its grpc-js service.

function encodeBlob(data) {
  const len = [];
  let n = data.length;
  while (n > 0x7f) {
    len.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  len.push(n);
  return Buffer.concat([Buffer.from([0x0a, ...len]), data]);
}

function decodeBlob(buf) {
  let i = 1;
  let len = 0;
  let shift = 0;
  while (buf[i] & 0x80) {
    len |= (buf[i++] & 0x7f) << shift;
    shift += 7;
  }
  len |= buf[i++] << shift;
  return buf.subarray(i, i + len);
}

/** The grpc-js definition of the bench service (Call and Stats, both Blob → Blob), for server and client. */
function echoService() {
  const method = (path) => ({
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: encodeBlob,
    requestDeserialize: decodeBlob,
    responseSerialize: encodeBlob,
    responseDeserialize: decodeBlob,
  });
  return { Call: method('/bench.Echo/Call'), Stats: method('/bench.Echo/Stats') };
}

module.exports = { encodeBlob, decodeBlob, echoService };
