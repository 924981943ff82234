import { fnv1a32, saramaPartition } from "../collector/kafka/sarama-partitioner.ts";
for (const k of ["", "a", "foobar", "0af7651916cd43dd8448eb211c80319c"]) console.log(JSON.stringify(k), fnv1a32(Buffer.from(k)).toString(16), [1,2,3,7,10].map(n => saramaPartition(k === "" ? Buffer.alloc(0) : k, n)));
