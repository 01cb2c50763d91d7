-- Copyright (c) 2026 The wan-training authors
-- SPDX-License-Identifier: GPL-2.0-only
--
-- Wireshark / tshark dissector for the IslandSyncHeader of the wan-training ns-3 module
-- (model/wire/island-sync-header.h), the header of every packet of the islands' sync transport.
--
--   tshark -X lua_script:tools/wireshark/wan-training.lua -r DIR/nyc-up.pcap
--   tshark -X lua_script:tools/wireshark/wan-training.lua -r FILE -Y 'wtsync.type == 1' \
--          -T fields -e wtsync.round -e wtsync.sender -e wtsync.chunk_index -e wtsync.contributors
--   wireshark -X lua_script:tools/wireshark/wan-training.lua FILE
--   (or copy the file into ~/.local/lib/wireshark/plugins/)
--
-- The dissector is registered on the module's UDP port (9477, TrainingIslandApplication::
-- DEFAULT_PORT; the preference "wtsync.port" changes it) and as a heuristic UDP dissector (the
-- magic "WT", version 2, a known type) for other ports.
--
-- Version 2 made the READY that asks for an answer (ready-ask) and the membership view (view)
-- message types of their own; version 1 sent them as a READY with chunk index 1 or 2. A
-- version-1 header is shown as malformed (unknown version).
--
-- The payload format of a data or aggregate is the high 4 bits of the type byte (0 fp32,
-- 1 bf16, 2 int8; 0 for the other types): an fp32 header is what it was before the formats, so
-- the version stays 2. The value count counts values in every format; the value area holds
-- count x float32 (fp32), count x bfloat16 (bf16: the upper half of a float32), or per block of
-- 1024 values (the last may be shorter) its float32 scale then one int8 code a value (value =
-- code x scale); an int8 value offset is a multiple of 1024.
--
-- Wire layout (network byte order; 40 bytes, then the value area):
--    0 magic 0x5754 u16 | 2 version u8 | 3 type u8: bits 0-3 the type (1 data, 2 aggregate,
--      3 nack, 4 done, 5 ready, 6 ready-ask, 7 view), bits 4-7 the payload format
--    4 job u16 | 6 sender island u16 | 8 round u32
--   12 clique u16 (bits 0-5 clique index, bits 6-15 exclusion epoch <= 63)
--   14 contributor count u16
--   16 chunk index u32 | 20 chunk count u32 | 24 contributor bitmap u64 (bit i = island i)
--   32 value offset u32 | 36 value count (range count for a nack) u16
--   38 checksum u16 (Internet checksum over header + value area)
--   40 values in the format, or ranges: count x (u32 begin, u32 end), then zero padding
-- Headers-only captures (snaplen) show the header; values that were not captured are
-- counted but not shown, and the checksum is then "unverified".
--
-- An aggregate's kind (wtsync.aggregate_kind, also in the Info column after "aggregate") comes
-- from its IPv4 addresses, read with WanTopologyHelper's address plan (WAN links in 10.0.0.0/9,
-- access links in 10.128.0.0/9, each a /30 whose router is host 1 and whose island is host 2):
--   total              multicast destination: a tree root's total, replicated by the routers
--   partial aggregate  from a router to an island not behind it: a tree FPGA's sum toward the root
--   edge aggregate     from a router's access address to its own island (aggregation and both
--                      modes; in tree mode the root's router summing toward the root)
--   island aggregate   from an island to an island: a ring segment or a tree total's repair
--   aggregate          any other addresses
-- wtsync.contributor_count is the number of contributions an aggregate sums.

local DEFAULT_PORT = 9477
local FIXED_SIZE = 40
local MAGIC = 0x5754
local VERSION = 2
local CLIQUE_BITS = 6
local MAX_EPOCH = 63
local INT8_BLOCK = 1024

local TYPE_DATA, TYPE_AGGREGATE, TYPE_NACK, TYPE_DONE = 1, 2, 3, 4
local TYPE_READY, TYPE_READY_ASK, TYPE_VIEW, TYPE_PARITY = 5, 6, 7, 8
-- The names of IslandSyncHeader::TypeToString.
local type_names = {
    [TYPE_DATA] = "data",
    [TYPE_AGGREGATE] = "aggregate",
    [TYPE_NACK] = "nack",
    [TYPE_DONE] = "done",
    [TYPE_READY] = "ready",
    [TYPE_READY_ASK] = "ready-ask",
    [TYPE_VIEW] = "view",
    [TYPE_PARITY] = "parity",
}
local FORMAT_FP32, FORMAT_BF16, FORMAT_INT8 = 0, 1, 2
-- The names of PayloadFormatToString.
local format_names = { [FORMAT_FP32] = "fp32", [FORMAT_BF16] = "bf16", [FORMAT_INT8] = "int8" }
local checksum_names = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }

local wtsync = Proto("wtsync", "WAN-training island sync")

local f = wtsync.fields
f.magic = ProtoField.uint16("wtsync.magic", "Magic", base.HEX)
f.version = ProtoField.uint8("wtsync.version", "Version", base.DEC)
f.type = ProtoField.uint8("wtsync.type", "Type", base.DEC, type_names, 0x0f)
f.format = ProtoField.uint8("wtsync.format", "Payload format", base.DEC, format_names, 0xf0)
f.job = ProtoField.uint16("wtsync.job", "Job", base.DEC)
f.sender = ProtoField.uint16("wtsync.sender", "Sender island", base.DEC)
f.round = ProtoField.uint32("wtsync.round", "Round", base.DEC)
f.clique = ProtoField.uint16("wtsync.clique", "Clique index", base.DEC, nil, 0x003f)
f.epoch = ProtoField.uint16("wtsync.epoch", "Exclusion epoch", base.DEC, nil, 0xffc0)
f.contributor_count = ProtoField.uint16("wtsync.contributor_count", "Contributor count", base.DEC)
f.chunk_index = ProtoField.uint32("wtsync.chunk_index", "Chunk index", base.DEC)
f.chunk_count = ProtoField.uint32("wtsync.chunk_count", "Chunk count", base.DEC)
f.contributors = ProtoField.uint64("wtsync.contributors", "Contributor bitmap", base.HEX)
f.contributor = ProtoField.uint8("wtsync.contributor", "Contributor island", base.DEC)
f.value_offset = ProtoField.uint32("wtsync.value_offset", "Value offset", base.DEC)
f.value_count = ProtoField.uint16("wtsync.value_count", "Value count", base.DEC)
f.range_count = ProtoField.uint16("wtsync.range_count", "Range count", base.DEC)
f.checksum = ProtoField.uint16("wtsync.checksum", "Checksum", base.HEX)
f.checksum_status = ProtoField.uint8("wtsync.checksum.status", "Checksum status", base.DEC,
    checksum_names)
f.values = ProtoField.none("wtsync.values", "Values")
f.value = ProtoField.float("wtsync.value", "Value")
f.scale = ProtoField.float("wtsync.scale", "Int8 block scale")
f.ranges = ProtoField.none("wtsync.ranges", "Ranges")
f.block_chunks = ProtoField.uint32("wtsync.block_chunks", "Chunks in the parity's block", base.DEC)
f.parity_bytes = ProtoField.uint16("wtsync.parity_bytes", "Parity bytes", base.DEC)
f.parity = ProtoField.bytes("wtsync.parity", "Parity (XOR of the block's encoded values)")
f.range_begin = ProtoField.uint32("wtsync.range.begin", "Range begin", base.DEC)
f.range_end = ProtoField.uint32("wtsync.range.end", "Range end (exclusive)", base.DEC)
f.padding = ProtoField.uint32("wtsync.padding", "Padding bytes", base.DEC)
f.model_bytes = ProtoField.uint32("wtsync.model_bytes", "Model bytes", base.DEC)
f.wire_frames = ProtoField.uint32("wtsync.wire_frames", "Wire frames (coarse frame)", base.DEC)
f.frame_headers = ProtoField.uint32("wtsync.frame_headers",
    "Headers of the other wire frames (bytes)", base.DEC)
f.aggregate_kind = ProtoField.string("wtsync.aggregate_kind", "Aggregate kind")

local ip_src_field = Field.new("ip.src")
local ip_dst_field = Field.new("ip.dst")

local e_malformed = ProtoExpert.new("wtsync.malformed", "Malformed island sync header",
    expert.group.MALFORMED, expert.severity.ERROR)
local e_checksum = ProtoExpert.new("wtsync.checksum.bad", "Bad island sync checksum",
    expert.group.CHECKSUM, expert.severity.ERROR)
wtsync.experts = { e_malformed, e_checksum }

wtsync.prefs.port = Pref.uint("UDP port", DEFAULT_PORT, "UDP port of the island sync transport")
wtsync.prefs.wire_mtu = Pref.uint("Wire MTU of coarse frames", 0,
    "0 for exact frames; for a capture of coarse frames (capture.json with frame_bytes > 0) "
    .. "its mtu_bytes: each DATA or AGGREGATE then stands for whole frames of that MTU and "
    .. "carries their other headers after its payload")

-- Bytes around each wire frame's payload: PPP 2, IPv4 20, UDP 8 and the fixed header 40.
local WIRE_FRAME_HEADER_BYTES = 70

-- The model bytes one wire frame of IP MTU mtu carries in a format (0 fp32, 1 bf16, 2 int8),
-- as WireFrames::GetCapacity: the most values (int8 whole 1024-value blocks of 1028 bytes, at
-- most 65535 values) after the IPv4, UDP and fixed sync headers.
local function wire_frame_capacity(mtu, format)
    local room = mtu - 68
    if room <= 0 then
        return 0
    end
    if format == 2 then
        local blocks = math.min(math.floor(room / 1028), math.floor(65535 / 1024))
        return blocks * 1028
    end
    local width = format == 1 and 2 or 4
    return math.min(math.floor(room / width), 65535) * width
end

-- The population count of a 32-bit number.
local function popcount32(x)
    local n = 0
    while x ~= 0 do
        x = bit32.band(x, x - 1)
        n = n + 1
    end
    return n
end

-- Whether the Internet checksum of tvb(0, size) verifies (the one's complement sum is 0xffff).
local function checksum_verifies(tvb, size)
    local sum = 0
    for i = 0, size - 2, 2 do
        sum = sum + tvb(i, 2):uint()
    end
    if size % 2 == 1 then
        sum = sum + tvb(size - 1, 1):uint() * 256
    end
    while sum > 0xffff do
        sum = bit32.band(sum, 0xffff) + bit32.rshift(sum, 16)
    end
    return sum == 0xffff
end

-- The float a bfloat16 stands for (the upper half of a float32).
local function bf16_value(bits)
    local sign = bit32.btest(bits, 0x8000) and -1 or 1
    local exponent = bit32.band(bit32.rshift(bits, 7), 0xff)
    local mantissa = bit32.band(bits, 0x7f)
    if exponent == 0xff then
        return mantissa == 0 and sign * math.huge or 0 / 0
    elseif exponent == 0 then
        return sign * mantissa * 2 ^ -133
    end
    return sign * (1 + mantissa / 128) * 2 ^ (exponent - 127)
end

-- The bytes of the value area of count values in a format.
local function area_bytes(format, count)
    if format == FORMAT_BF16 then
        return 2 * count
    elseif format == FORMAT_INT8 then
        return count + 4 * math.ceil(count / INT8_BLOCK)
    end
    return 4 * count
end

-- The four bytes of a dotted-quad IPv4 address, or nil.
local function ipv4_bytes(text)
    local a, b, c, d = string.match(text or "", "^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
    if a == nil then
        return nil
    end
    return { tonumber(a), tonumber(b), tonumber(c), tonumber(d) }
end

-- The innermost IPv4 address of a field ("ip.src" or "ip.dst") as its four bytes, or nil.
local function innermost(field)
    local values = { field() }
    if #values == 0 then
        return nil
    end
    return ipv4_bytes(tostring(values[#values].value))
end

-- The role of an address in WanTopologyHelper's plan: "router" (host 1 of an access /30 or
-- any WAN link address), "island" (host 2 of an access /30) or nil; and its access /30 network.
local function address_role(a)
    if a == nil or a[1] ~= 10 then
        return nil, nil
    end
    local network = a[2] * 65536 + a[3] * 256 + bit32.band(a[4], 0xfc)
    local host = bit32.band(a[4], 3)
    if a[2] < 128 then
        return "router", nil
    elseif host == 1 then
        return "router", network
    elseif host == 2 then
        return "island", network
    end
    return nil, nil
end

-- The kind of an AGGREGATE from the addresses of its IPv4 header (see the top of this file).
local function aggregate_kind()
    local src = innermost(ip_src_field)
    local dst = innermost(ip_dst_field)
    if dst ~= nil and dst[1] >= 224 and dst[1] <= 239 then
        return "total"
    end
    local src_role, src_network = address_role(src)
    local dst_role, dst_network = address_role(dst)
    if src_role == "island" and dst_role == "island" then
        return "island aggregate"
    elseif src_role == "router" and dst_role == "island" then
        if src_network ~= nil and src_network == dst_network then
            return "edge aggregate"
        end
        return "partial aggregate"
    end
    return "aggregate"
end

function wtsync.dissector(tvb, pinfo, tree)
    local captured = tvb:len()
    local reported = tvb:reported_len()
    pinfo.cols.protocol = "WTSYNC"
    local subtree = tree:add(wtsync, tvb(), "WAN-training island sync")
    if captured < FIXED_SIZE then
        if reported < FIXED_SIZE then
            subtree:add_proto_expert_info(e_malformed, "shorter than the 40-byte header")
        else
            subtree:append_text(" [header not captured]")
        end
        pinfo.cols.info = "sync (header not captured)"
        return captured
    end

    local magic = tvb(0, 2):uint()
    local version = tvb(2, 1):uint()
    local mtype = bit32.band(tvb(3, 1):uint(), 0x0f)
    local format = bit32.rshift(tvb(3, 1):uint(), 4)
    local job = tvb(4, 2):uint()
    local sender = tvb(6, 2):uint()
    local round = tvb(8, 4):uint()
    local clique_field = tvb(12, 2):uint()
    local clique = bit32.band(clique_field, bit32.lshift(1, CLIQUE_BITS) - 1)
    local epoch = bit32.rshift(clique_field, CLIQUE_BITS)
    local count = tvb(14, 2):uint()
    local chunk_index = tvb(16, 4):uint()
    local chunk_count = tvb(20, 4):uint()
    local bitmap_high = tvb(24, 4):uint()
    local bitmap_low = tvb(28, 4):uint()
    local value_offset = tvb(32, 4):uint()
    local area_count = tvb(36, 2):uint()

    subtree:add(f.magic, tvb(0, 2))
    subtree:add(f.version, tvb(2, 1))
    subtree:add(f.type, tvb(3, 1))
    subtree:add(f.format, tvb(3, 1))
    subtree:add(f.job, tvb(4, 2))
    subtree:add(f.sender, tvb(6, 2))
    subtree:add(f.round, tvb(8, 4))
    subtree:add(f.clique, tvb(12, 2))
    subtree:add(f.epoch, tvb(12, 2))
    subtree:add(f.contributor_count, tvb(14, 2))
    subtree:add(f.chunk_index, tvb(16, 4))
    subtree:add(f.chunk_count, tvb(20, 4))
    local bitmap_item = subtree:add(f.contributors, tvb(24, 8))
    local members = {}
    for i = 0, 63 do
        local word = i < 32 and bitmap_low or bitmap_high
        if bit32.btest(word, bit32.lshift(1, i % 32)) then
            bitmap_item:add(f.contributor, tvb(24 + 7 - math.floor(i / 8), 1), i):set_generated()
            members[#members + 1] = tostring(i)
        end
    end
    if mtype == TYPE_PARITY then
        subtree:add(f.block_chunks, tvb(32, 4))
    else
        subtree:add(f.value_offset, tvb(32, 4))
    end
    if mtype == TYPE_NACK then
        subtree:add(f.range_count, tvb(36, 2))
    elseif mtype == TYPE_PARITY then
        subtree:add(f.parity_bytes, tvb(36, 2))
    else
        subtree:add(f.value_count, tvb(36, 2))
    end
    local checksum_item = subtree:add(f.checksum, tvb(38, 2))

    local type_name = type_names[mtype] or "unknown"
    local shown_name = type_name
    if mtype == TYPE_AGGREGATE then
        local kind = aggregate_kind()
        subtree:add(f.aggregate_kind, kind):set_generated()
        shown_name = string.format("%s [%s, %d contributors]", type_name, kind, count)
    end
    pinfo.cols.info = string.format("%s job=%d round=%d clique=%d epoch=%d sender=%d "
        .. "chunk=%d/%d contributors={%s}", shown_name, job, round, clique, epoch, sender,
        chunk_index, chunk_count, table.concat(members, ","))
    if format ~= FORMAT_FP32 then
        pinfo.cols.info:append(" format=" .. (format_names[format] or "unknown"))
    end
    subtree:append_text(string.format(", %s, round %d, sender %d, chunk %d/%d", shown_name, round,
        sender, chunk_index, chunk_count))

    -- The same validity rules as IslandSyncHeader::Deserialize.
    local problem = nil
    local item_bytes = 0
    if magic ~= MAGIC then
        problem = "bad magic"
    elseif version ~= VERSION then
        problem = "unknown version"
    elseif type_names[mtype] == nil then
        problem = "unknown type"
    elseif format_names[format] == nil
        or (format ~= FORMAT_FP32 and mtype ~= TYPE_DATA and mtype ~= TYPE_AGGREGATE
            and mtype ~= TYPE_PARITY) then
        problem = "unknown format, or a format on a message without values"
    elseif sender >= 64 or (bitmap_high == 0 and bitmap_low == 0)
        or count ~= popcount32(bitmap_high) + popcount32(bitmap_low) then
        problem = "bad sender or contributors"
    elseif epoch > MAX_EPOCH then
        problem = "bad epoch"
    elseif mtype == TYPE_DATA or mtype == TYPE_AGGREGATE then
        item_bytes = 4
        local own_low = sender < 32 and bit32.lshift(1, sender) or 0
        local own_high = sender >= 32 and bit32.lshift(1, sender - 32) or 0
        if chunk_index >= chunk_count then
            problem = "chunk index beyond the chunk count"
        elseif mtype == TYPE_DATA and (bitmap_low ~= own_low or bitmap_high ~= own_high) then
            problem = "DATA contributors must be exactly the sender"
        elseif format == FORMAT_INT8 and value_offset % INT8_BLOCK ~= 0 then
            problem = "int8 value offset not on a block boundary"
        end
    elseif mtype == TYPE_NACK then
        item_bytes = 8
        if chunk_count == 0 or area_count == 0 then
            problem = "empty NACK"
        end
    elseif mtype == TYPE_PARITY then
        -- value offset: the chunks of the block; the area: the XOR of their encoded values.
        item_bytes = 1
        local own_low = sender < 32 and bit32.lshift(1, sender) or 0
        local own_high = sender >= 32 and bit32.lshift(1, sender - 32) or 0
        if value_offset == 0 or chunk_index >= chunk_count
            or value_offset > chunk_count - chunk_index
            or bitmap_low ~= own_low or bitmap_high ~= own_high then
            problem = "bad PARITY block or contributor"
        end
    elseif area_count ~= 0 then
        problem = "DONE, READY, READY_ASK or VIEW with a value area"
    end
    local size = FIXED_SIZE + item_bytes * area_count
    if mtype == TYPE_DATA or mtype == TYPE_AGGREGATE then
        size = FIXED_SIZE + area_bytes(format, area_count)
    end
    if problem == nil and size > reported then
        problem = "value area larger than the datagram"
    end
    if problem ~= nil then
        subtree:add_proto_expert_info(e_malformed, problem)
        return captured
    end

    if size <= captured then
        if checksum_verifies(tvb, size) then
            subtree:add(f.checksum_status, 1):set_generated()
        else
            subtree:add(f.checksum_status, 0):set_generated()
            checksum_item:add_proto_expert_info(e_checksum)
        end
    else
        subtree:add(f.checksum_status, 2):set_generated()
    end

    local shown = math.min(area_count, math.floor((captured - FIXED_SIZE) / math.max(item_bytes, 1)))
    if mtype == TYPE_DATA or mtype == TYPE_AGGREGATE then
        if area_count > 0 then
            local area_end = math.min(size, captured)
            local values = subtree:add(f.values, tvb(FIXED_SIZE, math.max(0, area_end - FIXED_SIZE)))
            shown = 0
            if format == FORMAT_INT8 then
                -- Per block: its scale, then a code a value (value = code x scale).
                local at = FIXED_SIZE
                for first = 0, area_count - 1, INT8_BLOCK do
                    if at + 4 > area_end then
                        break
                    end
                    local scale = tvb(at, 4):float()
                    values:add(f.scale, tvb(at, 4))
                    at = at + 4
                    for k = 0, math.min(INT8_BLOCK, area_count - first) - 1 do
                        if at >= area_end then
                            break
                        end
                        values:add(f.value, tvb(at, 1), tvb(at, 1):int() * scale)
                        at = at + 1
                        shown = shown + 1
                    end
                end
            else
                local value_bytes = format == FORMAT_BF16 and 2 or 4
                shown = math.min(area_count, math.floor((area_end - FIXED_SIZE) / value_bytes))
                for k = 0, shown - 1 do
                    local range = tvb(FIXED_SIZE + value_bytes * k, value_bytes)
                    if value_bytes == 2 then
                        values:add(f.value, range, bf16_value(range:uint()))
                    else
                        values:add(f.value, range)
                    end
                end
            end
            values:append_text(string.format(": %d at offset %d (%d captured)", area_count,
                value_offset, shown))
        end
        local after = reported - FIXED_SIZE
        local frames = 1
        local capacity = wire_frame_capacity(wtsync.prefs.wire_mtu, format)
        if wtsync.prefs.wire_mtu > 0 and capacity > 0 and after > capacity then
            frames = math.ceil(after / (capacity + WIRE_FRAME_HEADER_BYTES))
        end
        local headers = (frames - 1) * WIRE_FRAME_HEADER_BYTES
        subtree:add(f.model_bytes, after - headers):set_generated()
        if frames > 1 then
            subtree:add(f.wire_frames, frames):set_generated()
            subtree:add(f.frame_headers, headers):set_generated()
        end
    elseif mtype == TYPE_PARITY then
        subtree:add(f.parity, tvb(FIXED_SIZE, math.max(0, math.min(size, captured) - FIXED_SIZE)))
            :append_text(string.format(": chunks [%d, %d)", chunk_index, chunk_index + value_offset))
    elseif mtype == TYPE_NACK then
        local ranges = subtree:add(f.ranges, tvb(FIXED_SIZE, math.max(0, math.min(size, captured) - FIXED_SIZE)))
        ranges:append_text(string.format(": %d (%d captured)", area_count, shown))
        for k = 0, shown - 1 do
            local begin_chunk = tvb(FIXED_SIZE + 8 * k, 4):uint()
            local end_chunk = tvb(FIXED_SIZE + 8 * k + 4, 4):uint()
            local range = ranges:add(tvb(FIXED_SIZE + 8 * k, 8),
                string.format("Chunks [%d, %d)", begin_chunk, end_chunk))
            range:add(f.range_begin, tvb(FIXED_SIZE + 8 * k, 4))
            range:add(f.range_end, tvb(FIXED_SIZE + 8 * k + 4, 4))
            if begin_chunk >= end_chunk or end_chunk > chunk_count then
                range:add_proto_expert_info(e_malformed, "bad range")
            end
        end
    end
    if reported > size then
        subtree:add(f.padding, reported - size):set_generated()
    end
    return captured
end

-- Heuristic: the magic, the version, a known type and format (for a transport on another port).
local function heuristic(tvb, pinfo, tree)
    if tvb:len() < FIXED_SIZE or tvb(0, 2):uint() ~= MAGIC or tvb(2, 1):uint() ~= VERSION then
        return false
    end
    local type_byte = tvb(3, 1):uint()
    local format = bit32.rshift(type_byte, 4)
    if type_names[bit32.band(type_byte, 0x0f)] == nil or format_names[format] == nil then
        return false
    end
    wtsync.dissector(tvb, pinfo, tree)
    return true
end

local udp_port = DissectorTable.get("udp.port")
local registered_port = DEFAULT_PORT
udp_port:add(registered_port, wtsync)
wtsync:register_heuristic("udp", heuristic)

function wtsync.prefs_changed()
    if wtsync.prefs.port ~= registered_port then
        udp_port:remove(registered_port, wtsync)
        registered_port = wtsync.prefs.port
        udp_port:add(registered_port, wtsync)
    end
end
