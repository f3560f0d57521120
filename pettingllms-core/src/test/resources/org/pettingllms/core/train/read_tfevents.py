"""An independent reader of a TensorBoard event file, for TensorBoardLogTest.

Reads the records as TensorFlow's record reader does (length, masked CRC-32C of the length, data, masked CRC-32C of
the data: every CRC checked with crcmod's CRC-32C) and parses each Event with the protobuf library, from a descriptor
built here with event.proto's and summary.proto's field numbers and types. Prints the events as JSON lines; a bad CRC
or a short record exits 1 with one line saying where.

    /usr/bin/python3 read_tfevents.py FILE     (Debian: python3-protobuf, python3-crcmod)
"""
import json
import struct
import sys

import crcmod.predefined
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

CRC32C = crcmod.predefined.mkCrcFun("crc-32c")


def masked(data):
    c = CRC32C(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def event_class():
    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="tb_event.proto", package="tb", syntax="proto3")
    summary = fdp.message_type.add(name="Summary")
    value = summary.nested_type.add(name="Value")
    value.field.add(name="tag", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    value.field.add(name="simple_value", number=2, type=F.TYPE_FLOAT, label=F.LABEL_OPTIONAL)
    summary.field.add(name="value", number=1, type=F.TYPE_MESSAGE, type_name=".tb.Summary.Value",
                      label=F.LABEL_REPEATED)
    session = fdp.message_type.add(name="SessionLog")
    session.field.add(name="status", number=1, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    event = fdp.message_type.add(name="Event")
    event.field.add(name="wall_time", number=1, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
    event.field.add(name="step", number=2, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    event.field.add(name="file_version", number=3, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    event.field.add(name="summary", number=5, type=F.TYPE_MESSAGE, type_name=".tb.Summary", label=F.LABEL_OPTIONAL)
    event.field.add(name="session_log", number=7, type=F.TYPE_MESSAGE, type_name=".tb.SessionLog",
                    label=F.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    desc = pool.FindMessageTypeByName("tb.Event")
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


def main(path):
    Event = event_class()
    data = open(path, "rb").read()
    pos = 0
    n = 0
    while pos < len(data):
        if pos + 12 > len(data):
            sys.exit("record %d: short header at byte %d" % (n, pos))
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        if crc != masked(header):
            sys.exit("record %d: bad length CRC at byte %d" % (n, pos))
        body = data[pos + 12:pos + 12 + length]
        if len(body) != length or pos + 16 + length > len(data):
            sys.exit("record %d: short data at byte %d" % (n, pos))
        (crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        if crc != masked(body):
            sys.exit("record %d: bad data CRC at byte %d" % (n, pos))
        e = Event()
        e.ParseFromString(body)
        out = {"wall_time": e.wall_time, "step": e.step}
        if e.file_version:
            out["file_version"] = e.file_version
        if e.HasField("session_log"):
            out["session_log"] = e.session_log.status
        if e.HasField("summary"):
            out["values"] = {v.tag: v.simple_value for v in e.summary.value}
        print(json.dumps(out))
        pos += 16 + length
        n += 1


if __name__ == "__main__":
    main(sys.argv[1])
