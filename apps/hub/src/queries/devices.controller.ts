import { Controller, Get, Inject, Query, applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { parseBody } from '../common/parse-body';
import { READ_MODELS } from '../tokens';
import { listDevices, listDevicesQuerySchema } from './devices.query';

const filters: Array<[string, string]> = [
  ['nodeId', 'one node (uuid)'],
  ['domain', "the node's domain"],
  ['vendor', 'nvidia | ascend | hygon | cambricon'],
  ['model', 'exact model name'],
  ['maxHealth', 'health at most this (0-100)'],
  ['minUtilization', 'utilization at least this (0-1)'],
  ['sort', 'hostname (default) | utilization | memoryUsed | health | temperature'],
  ['order', 'asc (default) | desc'],
  ['limit', '1..1000, default 100'],
  ['offset', 'default 0'],
];

/** Accelerator devices and their latest usage (the device_state read model). */
@ApiTags('nodes')
@RequireRole('viewer')
@Controller('v1/devices')
export class DevicesController {
  constructor(@Inject(READ_MODELS) private readonly db: DataSource) {}

  @Get()
  @ApiOperation({
    summary: 'Accelerator devices of every node with utilization, memory in use, temperature, health',
  })
  @applyDecorators(...filters.map(([name, description]) => ApiQuery({ name, required: false, description })))
  list(@Query() query: unknown) {
    return listDevices(this.db, parseBody(listDevicesQuerySchema, query, 'DEVICES.QUERY'));
  }
}
